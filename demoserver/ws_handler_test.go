package demoserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func wsURL(hh *httpHarness) string {
	return "ws" + strings.TrimPrefix(hh.ts.URL, "http") + PathWebSocket
}

// wsDial opens a WebSocket to the harness; cleanup closes it.
func wsDial(t *testing.T, hh *httpHarness, protocols ...string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, wsURL(hh), &websocket.DialOptions{HTTPClient: hh.ts.Client(), Subprotocols: protocols})
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

func wsRoundTrip(t *testing.T, c *websocket.Conn, frame []byte) messages.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, c.Write(ctx, websocket.MessageText, frame))
	typ, data, err := c.Read(ctx)
	require.NoError(t, err)
	require.Equal(t, websocket.MessageText, typ)
	return decodeOne(t, string(data))
}

func TestWebSocketRoundTrip(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := wsDial(t, hh, WebSocketSubprotocol)
	assert.Equal(t, WebSocketSubprotocol, c.Subprotocol())

	m := wsRoundTrip(t, c, messages.AppendRequest(nil, messages.NumberID(1), messages.MethodInitialize,
		encodeParams(t, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})))
	require.Nil(t, m.Error)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, c.Write(ctx, websocket.MessageText, messages.AppendNotification(nil, messages.NotificationInitialized, nil)))
	m = wsRoundTrip(t, c, messages.AppendRequest(nil, messages.NumberID(2), messages.MethodToolsCall,
		encodeParams(t, &messages.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over ws"}})))
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), "over ws")
	awaitStats(t, hh.srv, func(s Stats) bool { return s.Initialized == 1 })

	// A normal close by the client ends the session cleanly.
	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ActiveSessions == 0 })
}

func TestWebSocketNeedsTheSubprotocol(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, wsURL(hh), &websocket.DialOptions{HTTPClient: hh.ts.Client()})
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	_, resp, err = websocket.Dial(ctx, wsURL(hh), &websocket.DialOptions{HTTPClient: hh.ts.Client(), Subprotocols: []string{"other"}})
	require.Error(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Zero(t, hh.srv.Stats().Sessions)
}

func TestWebSocketSessionEndsOnClose(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := wsDial(t, hh, "other", WebSocketSubprotocol)
	assert.Equal(t, WebSocketSubprotocol, c.Subprotocol())
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ActiveSessions == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, hh.h.Close(ctx))
	_, _, err := c.Read(ctx)
	assert.Error(t, err, "the server dropped the connection")
	assert.Zero(t, hh.srv.Stats().ActiveSessions)
}
