package mcpengine_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A first connect that cannot reach its server fails at once with a
// *ConnectError, not after the connect timeout with a JSON-RPC error: the
// connect ctx here is a minute, so on the old code every case ends with
// its deadline instead.
func TestAFirstConnectThatCannotReachTheServerFailsAtOnceTyped(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	cases := map[string]struct {
		url    string
		reason string // a word of the reason, whatever the platform adds
	}{
		"refused":      {"http://" + closedPort(t) + "/mcp", "refused"},
		"ftp":          {"ftp://x", `"ftp"`},
		"unresolvable": {"http://nonexistent.invalid/mcp", "nonexistent.invalid"},
		"tls":          {"https://" + strings.TrimPrefix(plain.URL, "http://") + "/mcp", "HTTP response to HTTPS"},
		"ws-refused":   {"ws://" + closedPort(t) + "/mcp", "refused"},
	}
	e := newEngine(t, mcpengine.Config{})
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := e.Connect(testCtx(t, 60*time.Second), mcpengine.SessionConfig{Name: name, Server: mcpengine.ServerConfig{URL: c.url}})
			require.Error(t, err)
			assert.Nil(t, s)
			var ce *mcpengine.ConnectError
			require.ErrorAs(t, err, &ce, "%v", err)
			assert.ErrorIs(t, err, mcpengine.ErrUnreachable)
			assert.False(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
			assert.True(t, mcpengine.SafeToRetry(err), "nothing reached the server")
			assert.Contains(t, ce.Reason, c.reason)
			assert.NotContains(t, err.Error(), "jsonrpc", "a network failure, not a JSON-RPC error")
			assert.Equal(t, 1, strings.Count(err.Error(), ce.Reason), "the reason once: %v", err)
		})
	}
}

// A command that cannot be started is a server never reached too.
func TestAFirstConnectToACommandThatCannotStartFailsAtOnceTyped(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	_, err := e.Connect(testCtx(t, 60*time.Second), mcpengine.SessionConfig{
		Name: "typo", Server: mcpengine.ServerConfig{Command: "no-such-mcp-server-binary"},
	})
	require.ErrorIs(t, err, mcpengine.ErrUnreachable)
	assert.Contains(t, err.Error(), "no-such-mcp-server-binary")
}

// Patience asked for: the session keeps retrying an unreachable server
// under its backoff, and Connect waits for its ctx.
func TestRetryInitialConnectKeepsTryingAnUnreachableServer(t *testing.T) {
	e := newEngine(t, mcpengine.Config{RetryInitialConnect: true})
	s, err := e.Open(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "patient", Server: mcpengine.ServerConfig{URL: "http://" + closedPort(t) + "/mcp"}})
	require.NoError(t, err)
	awaitBackoffs(t, s, 3)
}

// A session that was ready once keeps reconnecting when its server
// becomes unreachable: the backoff is for sessions that were up. (Over
// WebSocket, whose connection ends with the server; a Streamable HTTP
// session fails each request instead and stays up.)
func TestASessionThatWasReadyKeepsRetryingAnUnreachableServer(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{})
	e := newEngine(t, mcpengine.Config{})
	s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "was-up", Server: mcpengine.ServerConfig{URL: hs.WebSocketURL()}})
	require.NoError(t, err)
	require.NoError(t, hs.Close(testCtx(t, 10*time.Second)))
	awaitBackoffs(t, s, 3)
}

// awaitBackoffs waits until the session went into backoff n times, failing
// if it closes instead.
func awaitBackoffs(t *testing.T, s *mcpengine.Session, n int) {
	t.Helper()
	changes := make(chan mcpengine.StateChange, 64)
	stop := s.WatchState(func(ch mcpengine.StateChange) {
		select {
		case changes <- ch:
		default:
		}
	})
	defer stop()
	ctx := testCtx(t, 30*time.Second)
	for seen := 0; seen < n; {
		select {
		case ch := <-changes:
			require.NotEqual(t, mcpengine.StateClosed, ch.To, "closed: %v", ch.Err)
			if ch.To == mcpengine.StateBackoff {
				seen++
			}
		case <-ctx.Done():
			t.Fatalf("%d backoffs of %d; last error %v", seen, n, s.LastError())
		}
	}
}
