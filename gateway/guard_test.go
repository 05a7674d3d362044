package gateway_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/internal/testkit"
)

// request sends one request with the given Host and headers on a
// connection of its own and returns its status.
func request(t *testing.T, method, url, host, body string, header ...string) int {
	t.Helper()
	resp := testkit.RequestAs(t, testCtx(t, 30*time.Second), method, url, host, body, header...)
	_ = resp.Body.Close() // an open stream ends here; its status is the answer
	return resp.StatusCode
}

// In the default configuration (loopback, no client tokens) a web page
// whose name was re-pointed at 127.0.0.1 could call every upstream tool;
// now every endpoint refuses it with 403.
func TestGatewayRefusesADNSRebinding(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"demo": {Target: engineServe()}}})
	port := gw.URL[strings.LastIndex(gw.URL, ":")+1:]
	evil := "evil.example:" + port
	origin := []string{"Origin", "http://" + evil}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"x"}}}`
	routed := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"server_id":"demo"}`

	// A session opened by a local client.
	status, _, h := post(t, gw.MCPURL(), "", initialize)
	require.Equal(t, http.StatusOK, status)
	session := h.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)

	for name, st := range map[string]int{
		"/mcp initialize": request(t, http.MethodPost, gw.MCPURL(), evil, initialize, origin...),
		"/mcp tools/call": request(t, http.MethodPost, gw.MCPURL(), evil, call, append(origin, "Mcp-Session-Id", session, "Mcp-Protocol-Version", "2025-11-25")...),
		"/rpc tools/call": request(t, http.MethodPost, gw.RouteURL(), evil, routed, origin...),
		"GET /sse":        request(t, http.MethodGet, gw.SSEURL(), evil, "", append(origin, "Accept", "text/event-stream")...),
		"/healthz":        request(t, http.MethodGet, gw.URL+gateway.PathHealth, evil, "", origin...),
		"/metrics":        request(t, http.MethodGet, gw.URL+gateway.PathMetrics, evil, "", origin...),
		"Host alone":      request(t, http.MethodPost, gw.RouteURL(), evil, routed),
	} {
		assert.Equal(t, http.StatusForbidden, st, name)
	}
	// The same requests naming a loopback host go through.
	local := "localhost:" + port
	assert.Equal(t, http.StatusOK, request(t, http.MethodPost, gw.MCPURL(), local, call, "Mcp-Session-Id", session, "Mcp-Protocol-Version", "2025-11-25"))
	assert.Equal(t, http.StatusOK, request(t, http.MethodPost, gw.RouteURL(), local, routed, "Origin", "http://localhost:3000"))
	assert.Equal(t, http.StatusOK, request(t, http.MethodGet, gw.URL+gateway.PathHealth, local, ""))
}

func TestGatewayAllowedHosts(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{
		Servers:      map[string]gateway.Server{"demo": {Target: engineServe()}},
		AllowedHosts: []string{"mcp.internal"},
	})
	routed := `{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"demo"}`
	assert.Equal(t, http.StatusOK, request(t, http.MethodPost, gw.RouteURL(), "mcp.internal:8080", routed, "Origin", "https://mcp.internal"))
	assert.Equal(t, http.StatusForbidden, request(t, http.MethodPost, gw.RouteURL(), "other.internal", routed))
}

// slowPost sends the headers of a POST announcing a 1000-byte body, then
// its first byte only, and returns the connection (with a generous
// deadline for what the test reads).
func slowPost(t *testing.T, baseURL, path, headers string) net.Conn {
	t.Helper()
	addr := strings.TrimPrefix(baseURL, "http://")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\n"+headers+"Content-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	return c
}

// expectAnswerAndClose reads the one answer of c, and then its end.
func expectAnswerAndClose(t *testing.T, c net.Conn, status int) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "no answer before the client's deadline")
	assert.Equal(t, status, resp.StatusCode)
	_, _ = io.Copy(io.Discard, resp.Body)
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the connection is closed")
}

// A client without a token is refused before its body is read, whatever
// the body deadline: 401 at once, and the connection closed (before:
// no answer until the body had come, however slowly).
func TestGatewayRefusesATokenlessClientBeforeItsBody(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{
		Servers:     map[string]gateway.Server{"demo": {Target: engineServe()}},
		Clients:     []gateway.Client{{Name: "alice", Token: "alice-token-0123456789"}},
		BodyTimeout: time.Hour,
	})
	for _, path := range []string{gateway.PathMCP, gateway.PathRoute, gateway.PathMessage + "?sessionId=x"} {
		expectAnswerAndClose(t, slowPost(t, gw.URL, path, ""), http.StatusUnauthorized)
		expectAnswerAndClose(t, slowPost(t, gw.URL, path, "Authorization: Bearer wrong-token-0123456789\r\n"), http.StatusUnauthorized)
	}
}

// A client with a token that trickles its body gets 408 once the body
// deadline passes, and its connection is closed.
func TestGatewayCutsOffASlowBody(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{
		Servers:     map[string]gateway.Server{"demo": {Target: engineServe()}},
		Clients:     []gateway.Client{{Name: "alice", Token: "alice-token-0123456789"}},
		BodyTimeout: 50 * time.Millisecond,
	})
	for _, path := range []string{gateway.PathMCP, gateway.PathRoute} {
		expectAnswerAndClose(t, slowPost(t, gw.URL, path, "Authorization: Bearer alice-token-0123456789\r\n"), http.StatusRequestTimeout)
	}
}

// The gateway speaks h2c with prior knowledge.
func TestGatewayServesH2C(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"demo": {Target: engineServe()}}})
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(testCtx(t, 30*time.Second), http.MethodPost, gw.RouteURL(),
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"over h2c"}},"server_id":"demo"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 2, resp.ProtoMajor)
	assert.Contains(t, string(body), "over h2c")
}
