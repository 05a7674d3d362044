package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/internal/testkit/engineserve"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
)

// engineBin is the CLI, built once: upstream servers run as `engine serve`
// subprocesses, as users run them.
var engineBin string

func TestMain(m *testing.M) {
	// The cluster tests (cluster_test.go) run members in this process.
	os.Exit(testkit.Main(m, testkit.MainOptions{EngineBin: &engineBin, IgnoreLeaks: testkit.ProtoactorThrottleWaits}))
}

var (
	fastBackoff = testkit.FastBackoff()
	testCtx     = testkit.Ctx
	eventually  = testkit.Eventually
)

// engineServe is the demo server as a stdio subprocess.
func engineServe(args ...string) mcpengine.ServerConfig {
	return engineserve.Config(engineBin, args...)
}

// demoHTTP is an in-process demo server on a real TCP port.
func demoHTTP(t testing.TB, o demoserver.Options) (*demoserver.Server, *demoserver.HTTPServer) {
	t.Helper()
	srv := demoserver.New(o)
	hs, err := srv.ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Close(ctx)
	})
	return srv, hs
}

// startGateway starts a gateway on a loopback port and waits until every
// server is ready; both are closed when the test ends.
func startGateway(t testing.TB, cfg gateway.Config) (*gateway.Gateway, *gateway.HTTPServer) {
	t.Helper()
	if cfg.Engine.Backoff == (supervisor.Policy{}) {
		cfg.Engine.Backoff = fastBackoff
	}
	g, err := gateway.New(testCtx(t, 10*time.Second), cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, g.Close(ctx))
	})
	hs, err := g.Listen("127.0.0.1:0", gateway.ListenOptions{})
	require.NoError(t, err)
	require.NoError(t, g.WaitReady(testCtx(t, 20*time.Second)))
	return g, hs
}

// clientEngine is an engine for the gateway's clients, closed at the end.
// Unless cfg pins another version it speaks the handshake era
// (2025-11-25), whose server requests, GET stream, subscriptions and
// logging most tests exercise; left to negotiate (negotiatingEngine) it
// would settle on 2026-07-28, which the gateway serves without them.
func clientEngine(t testing.TB, cfg mcpengine.Config) *mcpengine.Engine {
	t.Helper()
	if cfg.ProtocolVersion == "" {
		cfg.ProtocolVersion = messages.Version20251125
	}
	return newClientEngine(t, cfg)
}

// negotiatingEngine is a client engine that negotiates the era.
func negotiatingEngine(t testing.TB) *mcpengine.Engine {
	t.Helper()
	return newClientEngine(t, mcpengine.Config{})
}

func newClientEngine(t testing.TB, cfg mcpengine.Config) *mcpengine.Engine {
	t.Helper()
	if cfg.Backoff == (supervisor.Policy{}) {
		cfg.Backoff = fastBackoff
	}
	e := mcpengine.New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, e.Close(ctx))
	})
	return e
}

// connect is the engine's own client on the gateway's aggregated endpoint.
func connect(t testing.TB, e *mcpengine.Engine, name string, hs *gateway.HTTPServer, token string) *mcpengine.Session {
	t.Helper()
	sc := mcpengine.ServerConfig{URL: hs.MCPURL(), Type: "streamable-http"}
	if token != "" {
		sc.Auth = &mcpengine.AuthConfig{Bearer: token}
	}
	s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{Name: name, Server: sc})
	require.NoError(t, err)
	return s
}

// post POSTs body to url with a bearer token (if any) and returns the
// status and the body.
func post(t testing.TB, url, token, body string, header ...string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t, 30*time.Second), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b, resp.Header
}

// postAsync is post for goroutines other than the test's: it reports
// failures with assert (FailNow must run on the test's goroutine) and
// returns nil then.
func postAsync(t testing.TB, url, body string) []byte {
	req, err := http.NewRequestWithContext(testCtx(t, 30*time.Second), http.MethodPost, url, strings.NewReader(body))
	if !assert.NoError(t, err) {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if !assert.NoError(t, err) {
		return nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !assert.NoError(t, err) {
		return nil
	}
	return b
}

// member returns one member of a JSON object exactly as its bytes are
// (encoding/json keeps a RawMessage's bytes as they were).
func member(t testing.TB, body []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(body), &m), "body: %s", body)
	return m[key]
}

// rpcError is the error member of a JSON-RPC response.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func decodeError(t testing.TB, body []byte) rpcError {
	t.Helper()
	raw := member(t, body, "error")
	require.NotNil(t, raw, "no error in %s", body)
	var e rpcError
	require.NoError(t, json.Unmarshal(raw, &e))
	return e
}

// toolText is the text of a tool result's first content block.
func toolText(t testing.TB, res *messages.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	return res.Content[0].Text
}

// mcpengineBackoffHour keeps a failed session in backoff for the rest of
// a test.
func mcpengineBackoffHour() supervisor.Policy {
	return supervisor.Policy{Initial: time.Hour, Max: time.Hour}
}

// notificationLog collects the notifications a session's handler gets.
type notificationLog struct {
	mu  sync.Mutex
	got []mcpengine.Notification
}

func (l *notificationLog) add(n mcpengine.Notification) {
	l.mu.Lock()
	l.got = append(l.got, n)
	l.mu.Unlock()
}

// seen is a condition for eventually: a notification of method whose
// params contain contains arrived.
func (l *notificationLog) seen(method, contains string) func() bool {
	return func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.ContainsFunc(l.got, func(n mcpengine.Notification) bool {
			return n.Method == method && strings.Contains(string(n.Params), contains)
		})
	}
}
