package demoserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

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
	assert.Equal(t, mcpserver.EventID(standaloneStreamID, 2), e.id)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationPromptsListChanged, m.Method)
}
