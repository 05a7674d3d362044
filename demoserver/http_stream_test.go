package demoserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestEventIDsNameTheirStream(t *testing.T) {
	id := eventID(7, 42)
	s, seq, ok := parseEventID(id)
	require.True(t, ok)
	assert.Equal(t, 7, s)
	assert.Equal(t, int64(42), seq)
	for _, bad := range []string{"", "7", "a-1", "1-b", "-1-2", "1--2"} {
		_, _, ok := parseEventID(bad)
		assert.False(t, ok, bad)
	}
}

func TestDecodeOutbound(t *testing.T) {
	msgs := decodeOutbound([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"m"}}]`))
	require.Len(t, msgs, 2)
	assert.Equal(t, messages.StringID("x"), msgs[1].ID)
	assert.Nil(t, decodeOutbound([]byte(garbageNotJSON)))
	assert.Nil(t, decodeOutbound([]byte(garbageInvalidUTF8)))
	assert.Nil(t, decodeOutbound([]byte(`[]`)))
	assert.Len(t, decodeOutbound([]byte(` {"jsonrpc":"2.0","method":"notifications/message"}`)), 1)
}

func TestStandaloneBufferIsBounded(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{HistoryLimit: 2})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	for _, kind := range []string{"tools", "resources", "prompts"} {
		text(t, c.tool("notify", map[string]any{"kind": kind}))
	}
	get := c.get("")
	require.Equal(t, http.StatusOK, get.StatusCode)
	r := newSSEReader(get)
	e, m := r.mustMessage(t)
	assert.Equal(t, messages.NotificationResourcesListChanged, m.Method, "the oldest was dropped")
	assert.Equal(t, eventID(standaloneStreamID, 2), e.id)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationPromptsListChanged, m.Method)
}
