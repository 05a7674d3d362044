package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// TestLegacySSEClientsReachEveryServer: the engine's own legacy HTTP+SSE
// client (2024-11-05) on the gateway's /sse lists and calls the tools of
// both servers, and takes their sampling, elicitation and roots requests
// on its one stream, as a Streamable HTTP client does on /mcp.
func TestLegacySSEClientsReachEveryServer(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	e := fullClient(t)
	s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{
		Name:   "legacy",
		Server: mcpengine.ServerConfig{URL: gw.SSEURL(), Type: "sse"},
	})
	require.NoError(t, err)
	assert.Equal(t, messages.Version20251125, s.ProtocolVersion())
	ctx := testCtx(t, 30*time.Second)

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	got := names(tools, func(t messages.Tool) string { return t.Name })
	assert.Contains(t, got, "a__echo")
	assert.Contains(t, got, "b__echo")
	for _, server := range []string{"a", "b"} {
		res, err := s.CallTool(ctx, server+"__echo", map[string]any{"text": "via sse"})
		require.NoError(t, err)
		assert.Equal(t, "via sse", toolText(t, res))

		res, err = s.CallTool(ctx, server+"__sample", map[string]any{"prompt": "hi"})
		require.NoError(t, err)
		assert.Equal(t, "sampled: hi", toolText(t, res), "sampling through %s", server)

		res, err = s.CallTool(ctx, server+"__roots", map[string]any{})
		require.NoError(t, err)
		assert.Contains(t, toolText(t, res), "file:///work/project", "roots through %s", server)
	}
	require.NoError(t, s.Close(context.Background()))
}

func TestLegacyMessagesNeedTheirSession(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	status, _, _ := post(t, gw.URL+"/message?sessionId=nope", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Equal(t, http.StatusNotFound, status)

	// A Streamable HTTP session is not a legacy one, nor the reverse.
	hdr := rawFrontSession(t, gw, "", `{}`)
	status, _, _ = post(t, gw.URL+"/message?sessionId="+hdr[1], "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Equal(t, http.StatusNotFound, status)
}
