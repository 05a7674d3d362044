package websocket

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	cws "github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/supervisor"
)

func TestDialRequestsTheMCPSubprotocolAndSendsHeaders(t *testing.T) {
	ts := serve(t, []string{Subprotocol}, echo(nil))
	c := dial(t, ts, Dialer{Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	require.NoError(t, c.WriteFrames([]byte(`{"jsonrpc":"2.0","method":"ping","id":1}`)))
	_, err := c.ReadFrame()
	require.NoError(t, err)

	h := ts.handshakeHeaders()
	require.Len(t, h, 1)
	assert.Equal(t, Subprotocol, h[0].Get("Sec-WebSocket-Protocol"))
	assert.Equal(t, "Bearer s3cret", h[0].Get("Authorization"))
}

func TestDialRefusesAServerThatDoesNotAgreeToMCP(t *testing.T) {
	closed := make(chan cws.StatusCode, 1)
	ts := serve(t, nil, echo(closed)) // upgrades, but agrees to no subprotocol

	_, err := Dialer{URL: ts.url + "/mcp?token=s3cret"}.Dial(context.Background())
	var he *HandshakeError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, http.StatusSwitchingProtocols, he.Status)
	assert.Empty(t, he.Subprotocol)
	assert.Contains(t, err.Error(), `did not agree to the "mcp" subprotocol`)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Equal(t, supervisor.RetryBudgeted, supervisor.Classify(err), "a refusal rarely fixes itself")
	assert.Equal(t, cws.StatusPolicyViolation, within(t, 5*time.Second, closed), "the refused connection is closed politely")
}

func TestDialReportsTheHTTPStatusOfARefusedUpgrade(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   supervisor.Decision
	}{
		{http.StatusUnauthorized, supervisor.RetryBudgeted},
		{http.StatusNotFound, supervisor.RetryBudgeted},
		{http.StatusBadGateway, supervisor.Retry}, // a proxy in front of a restarting server
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			url := serveHTTP(t, func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "no", tc.status)
			})
			_, err := Dialer{URL: url + "?token=s3cret"}.Dial(context.Background())
			var he *HandshakeError
			require.ErrorAs(t, err, &he)
			assert.Equal(t, tc.status, he.Status)
			assert.Contains(t, err.Error(), http.StatusText(tc.status))
			assert.NotContains(t, err.Error(), "s3cret")
			assert.Equal(t, tc.want, supervisor.Classify(err))
		})
	}
}

func TestDialContextBoundsOnlyTheHandshake(t *testing.T) {
	ts := serve(t, []string{Subprotocol}, echo(nil))
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Dialer{URL: ts.url}.Dial(ctx)
	require.NoError(t, err)
	defer c.Close(context.Background())
	cancel()

	require.NoError(t, c.WriteFrames([]byte(`{"id":1}`)))
	got, err := c.ReadFrame()
	require.NoError(t, err, "the connection outlives the dial context")
	assert.JSONEq(t, `{"id":1}`, string(got))
}

func TestDialGivesUpWhenItsContextEnds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	url := serveHTTP(t, func(http.ResponseWriter, *http.Request) { <-release }) // never answers

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Dialer{URL: url}.Dial(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestDialRejectsURLsItCannotUse(t *testing.T) {
	for _, u := range []string{"", "ftp://example.com/mcp", "ws://", "ws://user:pa ss@host/\x7f"} {
		_, err := Dialer{URL: u}.Dial(context.Background())
		require.Error(t, err, u)
		assert.True(t, strings.HasPrefix(err.Error(), "websocket: dial "), err.Error())
		assert.NotContains(t, err.Error(), "pa ss")
	}
}

func TestDialRefusesAPlainHTTPAnswer(t *testing.T) {
	url := serveHTTP(t, func(http.ResponseWriter, *http.Request) {}) // 200, no upgrade
	_, err := Dialer{URL: url}.Dial(context.Background())
	var he *HandshakeError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, http.StatusOK, he.Status)
}

func TestDialFailsOnARefusedConnectionAndRetriesWithoutLimit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there any more

	_, err = Dialer{URL: "ws://" + addr + "/mcp?token=s3cret"}.Dial(context.Background())
	require.Error(t, err)
	var he *HandshakeError
	assert.False(t, errors.As(err, &he), "no server answered: not a handshake refusal")
	assert.Contains(t, err.Error(), "websocket: dial websocket:ws://"+addr+"/mcp: ")
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Equal(t, supervisor.Retry, supervisor.Classify(err))
}

func TestStringHidesCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"wss://user:pw@example.com/mcp?token=s3cret#frag": "websocket:wss://example.com/mcp",
		"ws://127.0.0.1:8080":                             "websocket:ws://127.0.0.1:8080",
		"https://example.com/ws?":                         "websocket:https://example.com/ws",
		"ws://host/\x7f":                                  "websocket:(invalid URL)",
	} {
		assert.Equal(t, want, Dialer{URL: in}.String(), in)
	}
}
