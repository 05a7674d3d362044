package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// rawSession opens a Streamable HTTP session on a server by hand and
// returns the headers every later request of it needs.
func rawSession(t *testing.T, url string) []string {
	t.Helper()
	status, body, h := post(t, url, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	sid := h.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	hdr := []string{"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18"}
	status, _, _ = post(t, url, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)
	require.Equal(t, http.StatusAccepted, status)
	return hdr
}

func TestRoutingPassesTheServersAnswerThroughByteForByte(t *testing.T) {
	// The direct session below is of the handshake era: the gateway's
	// upstream session must be too for the bytes to be the same.
	_, up := demoHTTP(t, demoserver.Options{Versions: messages.LegacyVersions})
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{
		"demo": {Target: mcpengine.ServerConfig{URL: up.StreamableURL()}},
	}})
	direct := rawSession(t, up.StreamableURL())

	cases := []struct {
		name, method, params, member string
	}{
		{"tool result with escapes and non-ASCII", "tools/call", `{"name":"echo","arguments":{"text":"h\u00e9llo \"w\u00f6rld\" \u2028 <b> & \ud83d\ude00 \\ /"}}`, "result"},
		{"tool error result", "tools/call", `{"name":"fail","arguments":{"message":"boom"}}`, "result"},
		{"JSON-RPC error of the server", "tools/call", `{"name":"no-such-tool","arguments":{}}`, "error"},
		{"JSON-RPC error with data", "resources/read", `{"uri":"demo://resource/99999"}`, "error"},
		{"resource", "resources/read", `{"uri":"demo://resource/7"}`, "result"},
		{"prompt", "prompts/get", `{"name":"greet","arguments":{"name":"Ada"}}`, "result"},
		{"list page with cursor", "tools/list", `{}`, "result"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := 100 + i
			status, want, _ := post(t, up.StreamableURL(), "",
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, c.method, c.params), direct...)
			require.Equal(t, http.StatusOK, status, "%s", want)
			status, got, _ := post(t, gw.RouteURL(), "",
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s,"server_id":"demo"}`, id, c.method, c.params))
			require.Equal(t, http.StatusOK, status, "%s", got)

			w, g := member(t, want, c.member), member(t, got, c.member)
			require.NotEmpty(t, w, "direct answer has no %s: %s", c.member, want)
			assert.Equal(t, string(w), string(g), "the %s must be the server's bytes", c.member)
			assert.Equal(t, fmt.Sprint(id), string(member(t, got, "id")))
		})
	}
}

func TestRoutingRefusesAnUnknownServer(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"demo": {Target: engineServe()}}})

	status, body, _ := post(t, gw.RouteURL(), "", `{"jsonrpc":"2.0","id":"a-1","method":"tools/list","server_id":"unknown"}`)
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"a-1","error":{"code":-32001,"message":"Server 'unknown' not found"}}`, string(body))

	status, body, _ = post(t, gw.RouteURL(), "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, int64(-32600), decodeError(t, body).Code)

	// A routed call reaches the server and comes back under the client's id.
	status, body, _ = post(t, gw.RouteURL(), "", `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}},"server_id":"demo"}`)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(member(t, body, "result")), `"sum":5`)
	assert.Equal(t, `"x"`, string(member(t, body, "id")))
}

func TestRoutingServerDownIsUnavailableThenRecovers(t *testing.T) {
	up, err := demoserver.New(demoserver.Options{}).ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	require.NoError(t, err)
	addr := strings.TrimPrefix(up.URL, "http://")
	_, gw := startGateway(t, gateway.Config{
		Servers:   map[string]gateway.Server{"flaky": {Target: mcpengine.ServerConfig{URL: up.StreamableURL(), Type: "streamable-http"}}},
		ReadyWait: 500 * time.Millisecond,
	})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"up"}},"server_id":"flaky"}`

	_, body, _ := post(t, gw.RouteURL(), "", call)
	require.Contains(t, string(member(t, body, "result")), `"up"`)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	require.NoError(t, up.Close(ctx))
	cancel()

	_, body, _ = post(t, gw.RouteURL(), "", call)
	e := decodeError(t, body)
	assert.Equal(t, int64(-32000), e.Code)
	assert.Equal(t, "Failed to connect to server", e.Message)
	assert.Contains(t, string(e.Data), `"server":"flaky"`)

	// The server comes back on the same address: the gateway's session
	// finds its old server session gone, starts a new one, and calls go
	// through again.
	back, err := demoserver.New(demoserver.Options{}).ListenHTTP(addr, demoserver.HTTPOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = back.Close(ctx)
	})
	eventually(t, 20*time.Second, func() bool {
		_, body, _ := post(t, gw.RouteURL(), "", call)
		return strings.Contains(string(member(t, body, "result")), `"up"`)
	}, "calls did not recover after the server came back")
}

func TestRoutingStdioServerCrashIsUnavailableUntilRestarted(t *testing.T) {
	// The server process exits on its fourth request (after the era
	// probe, initialize and one call); with a backoff of an hour the
	// session stays down.
	g, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{"crashy": {Target: engineServe("--exit-after", "3")}},
		Engine:  mcpengine.Config{Backoff: mcpengineBackoffHour()},
	})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"server_id":"crashy"}`
	_, body, _ := post(t, gw.RouteURL(), "", call)
	require.NotNil(t, member(t, body, "result"), "%s", body)

	_, body, _ = post(t, gw.RouteURL(), "", call) // the process exits on this one
	assert.Equal(t, int64(-32000), decodeError(t, body).Code)
	eventually(t, 10*time.Second, func() bool { return g.Health().Servers["crashy"].Sessions[0].State == "backoff" }, "session not in backoff")

	start := time.Now()
	_, body, _ = post(t, gw.RouteURL(), "", call)
	e := decodeError(t, body)
	assert.Equal(t, int64(-32000), e.Code)
	assert.Less(t, time.Since(start), time.Second, "a server in backoff fails at once, without waiting ReadyWait")
	assert.Equal(t, "down", g.Health().Status)
}

func TestRoutingReportsAServerThatDoesNotAnswerInTime(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{"slow": {Target: engineServe()}},
		Engine:  mcpengine.Config{RequestTimeout: 200 * time.Millisecond},
	})
	_, body, _ := post(t, gw.RouteURL(), "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5000}},"server_id":"slow"}`)
	e := decodeError(t, body)
	assert.Equal(t, int64(gateway.CodeUnavailable), e.Code)
	assert.Equal(t, "Server did not answer in time", e.Message)
}

func TestAServerThatCannotStartIsRetriedNotAbandoned(t *testing.T) {
	g, err := gateway.New(testCtx(t, 10*time.Second), gateway.Config{
		Servers:   map[string]gateway.Server{"missing": {Target: mcpengine.ServerConfig{Command: "/nonexistent/mcp-server"}}},
		Engine:    mcpengine.Config{Backoff: fastBackoff},
		ReadyWait: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, g.Close(ctx))
	})
	hs, err := g.Listen("127.0.0.1:0", gateway.ListenOptions{})
	require.NoError(t, err)

	// The engine alone closes a session after five such failures.
	eventually(t, 20*time.Second, func() bool { return g.Health().Servers["missing"].Sessions[0].Restarts > 7 }, "restarts")
	st := g.Health().Servers["missing"].Sessions[0]
	assert.NotEqual(t, "closed", st.State)
	assert.Contains(t, st.LastError, "no such file")
	_, body, _ := post(t, hs.RouteURL(), "", `{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"missing"}`)
	e := decodeError(t, body)
	assert.Equal(t, int64(gateway.CodeUnavailable), e.Code)
	assert.Contains(t, string(e.Data), "no such file")
}
