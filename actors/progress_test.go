package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestProgressTokenIsPutIntoParamsMeta(t *testing.T) {
	cases := map[string]string{
		"":                                     `{"_meta":{"progressToken":7}}`,
		"null":                                 `{"_meta":{"progressToken":7}}`,
		"{ }":                                  `{"_meta":{"progressToken":7}}`,
		`{"name":"echo"}`:                      `{"_meta":{"progressToken":7},"name":"echo"}`,
		` {"name":"x","arguments":{"a":1}} `:   `{"_meta":{"progressToken":7},"name":"x","arguments":{"a":1}}`,
		`{"name":"x","_meta":{"trace":"abc"}}`: `{"_meta":{"progressToken":7,"trace":"abc"},"name":"x"}`,
		`{"arguments":{"_meta":"not top"}}`:    `{"_meta":{"progressToken":7},"arguments":{"_meta":"not top"}}`,
	}
	for in, want := range cases {
		out := withProgressToken(messages.RawMessage(in), 7)
		require.True(t, messages.Valid(out), "%q -> %s", in, out)
		assert.JSONEq(t, want, string(out), "input %q", in)
	}
}
