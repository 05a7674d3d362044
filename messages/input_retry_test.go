package messages_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	m "github.com/mcpengine/mcpengine/messages"
)

func TestAppendInputRetryAddsTheRoundsMembersToACopyOfTheParams(t *testing.T) {
	responses := m.InputResponses{"b": m.RawMessage(`{"roots":[]}`), "a": m.RawMessage(`{"action":"decline"}`)}
	params := m.RawMessage(`{"_meta":{"traceparent":"x"},"name":"t"} `)
	got := m.AppendInputRetry(nil, params, responses, "s\"1")
	assert.JSONEq(t, `{"_meta":{"traceparent":"x"},"name":"t","inputResponses":{"a":{"action":"decline"},"b":{"roots":[]}},"requestState":"s\"1"}`, string(got))
	assert.Equal(t, `{"_meta":{"traceparent":"x"},"name":"t"} `, string(params), "the caller's params are left alone")
	assert.Contains(t, string(got), `{"a":`, "keys in order")

	assert.Equal(t, `{"requestState":"s"}`, string(m.AppendInputRetry(nil, nil, nil, "s")))
	assert.Equal(t, `{"requestState":"s"}`, string(m.AppendInputRetry(nil, m.RawMessage(` { } `), nil, "s")))
	assert.Equal(t, `{"inputResponses":{"a":{}}}`, string(m.AppendInputRetry(nil, m.RawMessage(`null`), m.InputResponses{"a": m.RawMessage(`{}`)}, "")))
}
