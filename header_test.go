package mcpengine_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// seenRequest is one HTTP request as it reached the server.
type seenRequest struct {
	method string
	header http.Header
	body   string
}

// recordingProxy forwards to target (streaming answers as they come) and
// records every request.
func recordingProxy(t *testing.T, target string) (string, func() []seenRequest) {
	u, err := url.Parse(target)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	proxy.FlushInterval = -1
	var mu sync.Mutex
	var seen []seenRequest
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		mu.Lock()
		seen = append(seen, seenRequest{r.Method, r.Header.Clone(), string(body)})
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + u.Path, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

// TestWithHeaderAndOnHTTPRequestReachTheDemoServerOverStreamableHTTP: in
// each era, Config.OnHTTPRequest's header is on every request the session
// sends, and WithHeader's on its own request's POST only; a caller's
// header cannot replace the transport's (Content-Type), so the call still
// works.
func TestWithHeaderAndOnHTTPRequestReachTheDemoServerOverStreamableHTTP(t *testing.T) {
	for _, era := range []struct {
		name     string
		versions []string
	}{{"legacy", messages.LegacyVersions}, {"modern", messages.ModernVersions}} {
		t.Run(era.name, func(t *testing.T) {
			_, hs := demoHTTP(t, demoserver.Options{Versions: era.versions}, demoserver.HTTPOptions{})
			endpoint, seen := recordingProxy(t, hs.StreamableURL())
			e := newEngine(t, mcpengine.Config{OnHTTPRequest: func(r *http.Request) { r.Header.Set("X-Tenant", "blue") }})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "h", Server: mcpengine.ServerConfig{URL: endpoint, Type: "streamable-http"}})
			require.NoError(t, err)

			res, err := s.CallTool(ctx, "echo", map[string]any{"text": "tagged"},
				mcpengine.WithHeader("x-request-id", "r-1"), mcpengine.WithHeader("Content-Type", "text/plain"))
			require.NoError(t, err)
			assert.Equal(t, "tagged", res.Content[0].Text)
			_, err = s.CallTool(ctx, "echo", map[string]any{"text": "plain"})
			require.NoError(t, err)

			tagged := 0
			for _, r := range seen() {
				assert.Equal(t, "blue", r.header.Get("X-Tenant"), "%s %s", r.method, r.body)
				if r.header.Get("X-Request-Id") == "" {
					continue
				}
				tagged++
				assert.Equal(t, "r-1", r.header.Get("X-Request-Id"))
				assert.Contains(t, r.body, `"tagged"`, "only the call that asked carries it")
				assert.Equal(t, "application/json", r.header.Get("Content-Type"), "the transport's header wins")
			}
			assert.Equal(t, 1, tagged)
		})
	}
}

// TestSessionOnHTTPRequestReplacesTheEngines: a session's hook is used
// instead of the engine's.
func TestSessionOnHTTPRequestReplacesTheEngines(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{})
	endpoint, seen := recordingProxy(t, hs.StreamableURL())
	e := newEngine(t, mcpengine.Config{OnHTTPRequest: func(r *http.Request) { r.Header.Set("X-Tenant", "blue") }})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{
		Name: "h", Server: mcpengine.ServerConfig{URL: endpoint},
		OnHTTPRequest: func(r *http.Request) { r.Header.Set("X-Tenant", "green") },
	})
	require.NoError(t, err)
	require.NoError(t, s.Ping(ctx))
	require.NotEmpty(t, seen())
	for _, r := range seen() {
		assert.Equal(t, "green", r.header.Get("X-Tenant"), "%s %s", r.method, strings.TrimSpace(r.body))
	}
}

// TestOnHTTPRequestSeesEveryRequestOfEachHTTPTransport: the hook's header
// is on every request of a session over HTTP+SSE (the GET stream and the
// POSTs) and on the WebSocket handshake, as over Streamable HTTP.
func TestOnHTTPRequestSeesEveryRequestOfEachHTTPTransport(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{})
	for _, tc := range []struct{ kind, url string }{{"sse", hs.SSEURL()}, {"ws", hs.WebSocketURL()}} {
		t.Run(tc.kind, func(t *testing.T) {
			target := strings.Replace(tc.url, "ws://", "http://", 1)
			endpoint, seen := recordingProxy(t, target)
			if tc.kind == "ws" {
				endpoint = strings.Replace(endpoint, "http://", "ws://", 1)
			}
			e := newEngine(t, mcpengine.Config{OnHTTPRequest: func(r *http.Request) { r.Header.Set("X-Tenant", "blue") }})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: tc.kind, Server: mcpengine.ServerConfig{URL: endpoint, Type: tc.kind}})
			require.NoError(t, err)
			require.NoError(t, s.Ping(ctx))
			require.NotEmpty(t, seen())
			for _, r := range seen() {
				assert.Equal(t, "blue", r.header.Get("X-Tenant"), "%s %s", r.method, strings.TrimSpace(r.body))
			}
		})
	}
}
