package gateway_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
)

func authGateway(t *testing.T) (*gateway.Gateway, *gateway.HTTPServer) {
	return startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{"demo": {Target: engineServe()}},
		Clients: []gateway.Client{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}},
	})
}

func TestAuthRefusesClientsWithoutAValidToken(t *testing.T) {
	_, gw := authGateway(t)
	call := `{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"demo"}`
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

	for _, url := range []string{gw.RouteURL(), gw.MCPURL()} {
		body := call
		if url == gw.MCPURL() {
			body = initialize
		}
		status, _, h := post(t, url, "", body)
		assert.Equal(t, http.StatusUnauthorized, status, "%s without a token", url)
		assert.Equal(t, `Bearer realm="mcpengine-gateway"`, h.Get("WWW-Authenticate"))
		status, _, _ = post(t, url, "wrong-token-0123456789", body)
		assert.Equal(t, http.StatusUnauthorized, status, "%s with a wrong token", url)
		status, b, _ := post(t, url, aliceToken, body)
		assert.Equal(t, http.StatusOK, status, "%s with alice's token: %s", url, b)
	}

	// The engine's own client: refused without the token, in with it.
	e := clientEngine(t, mcpengine.Config{RestartBudget: 1})
	_, err := e.Connect(testCtx(t, time.Second), mcpengine.SessionConfig{Name: "anon", Server: mcpengine.ServerConfig{URL: gw.MCPURL(), Type: "streamable-http"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "401")
	s := connect(t, e, "alice", gw, aliceToken)
	require.NoError(t, s.Ping(testCtx(t, 5*time.Second)))
}

func TestAuthKeepsASessionToTheClientThatOpenedIt(t *testing.T) {
	_, gw := authGateway(t)
	hdr := rawFrontSession(t, gw, aliceToken, `{}`)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	status, _, _ := post(t, gw.MCPURL(), bobToken, list, hdr...)
	assert.Equal(t, http.StatusForbidden, status, "bob cannot use alice's session")
	status, body, _ := post(t, gw.MCPURL(), aliceToken, list, hdr...)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(body), "demo__echo")
}

func TestAuthWithoutTokensAdmitsLoopbackPeersOnly(t *testing.T) {
	g, _ := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"demo": {Target: engineServe()}}})
	serve := func(remote string) int {
		r := httptest.NewRequest(http.MethodPost, gateway.PathRoute, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"demo"}`))
		r.RemoteAddr = remote
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		g.Handler().ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, http.StatusOK, serve("127.0.0.1:40000"))
	assert.Equal(t, http.StatusOK, serve("[::1]:40000"))
	assert.Equal(t, http.StatusForbidden, serve("192.0.2.7:40000"))

	_, err := g.Listen("0.0.0.0:0", gateway.ListenOptions{})
	assert.ErrorContains(t, err, "not a loopback address")
	_, err = g.Listen("0.0.0.0:0", gateway.ListenOptions{AllowRemote: true})
	assert.ErrorContains(t, err, "needs client tokens")
}

func TestAuthLetsRemoteClientsInWithATokenWhenAllowed(t *testing.T) {
	g, _ := authGateway(t)
	hs, err := g.Listen("0.0.0.0:0", gateway.ListenOptions{AllowRemote: true})
	require.NoError(t, err) // closed by the gateway's Close
	// Reached through loopback, under a loopback name (the listener's
	// own, "[::]" or "0.0.0.0", is no name a client uses).
	url := "http://127.0.0.1:" + hs.URL[strings.LastIndex(hs.URL, ":")+1:] + gateway.PathRoute
	status, body, _ := post(t, url, bobToken, `{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"demo"}`)
	assert.Equal(t, http.StatusOK, status, "%s", body)
}

func TestHealthAndMetricsReportTheUpstreamSessions(t *testing.T) {
	g, gw := authGateway(t)
	_, body, _ := post(t, gw.RouteURL(), aliceToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"server_id":"demo"}`)
	require.NotNil(t, member(t, body, "result"))

	get := func(path, token string) (int, string) {
		req, err := http.NewRequestWithContext(testCtx(t, 10*time.Second), http.MethodGet, gw.URL+path, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, health := get(gateway.PathHealth, "")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, health, `"status":"ok"`)
	assert.Contains(t, health, `"name":"demo#0","state":"ready"`)
	assert.Equal(t, 1, g.Health().Servers["demo"].Ready)

	status, metrics := get(gateway.PathMetrics, "")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, metrics, `mcp_gateway_requests_total{client="alice",method="tools/call",`)
	assert.Contains(t, metrics, `outcome="ok",server="demo"`)
	assert.Contains(t, metrics, `mcp_gateway_upstream_sessions{`)
	assert.Contains(t, metrics, "mcp_client_operation_duration_seconds", "the engine's own metrics on the same registry")

	// Not loopback and no token: refused.
	r := httptest.NewRequest(http.MethodGet, gateway.PathHealth, nil)
	r.RemoteAddr = "192.0.2.7:40000"
	w := httptest.NewRecorder()
	g.Handler().ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
}

func TestEndpointsRefuseRequestsAWebPageCouldMake(t *testing.T) {
	// Without tokens a loopback gateway trusts its host; a web page the
	// user opens must not be able to use it.
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"demo": {Target: engineServe()}}})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"server_id":"demo"}`
	status, _, _ := post(t, gw.RouteURL(), "", call, "Content-Type", "text/plain")
	assert.Equal(t, http.StatusUnsupportedMediaType, status, "a simple (preflight-free) request")
	for _, url := range []string{gw.RouteURL(), gw.MCPURL()} {
		status, _, _ = post(t, url, "", call, "Origin", "https://evil.example")
		assert.Equal(t, http.StatusForbidden, status, "%s from another origin", url)
	}
	status, _, _ = post(t, gw.RouteURL(), "", call, "Origin", "http://localhost:3000")
	assert.Equal(t, http.StatusOK, status, "a loopback origin")
}

func TestEndpointsRefuseABodyOverTheSizeCap(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{
		Servers:      map[string]gateway.Server{"demo": {Target: engineServe()}},
		MaxBodyBytes: 256,
	})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 300) + `"}},"server_id":"demo"}`
	for _, url := range []string{gw.RouteURL(), gw.MCPURL()} {
		status, body, _ := post(t, url, "", big)
		assert.Equal(t, http.StatusRequestEntityTooLarge, status, url)
		assert.Contains(t, string(body), `"code":-32600`, url)
	}
}
