package mcpengine_test

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/legacysse"
)

// demoHTTP serves a demo server over every HTTP transport on a loopback
// port in this process, until the test ends.
func demoHTTP(t *testing.T, opts demoserver.Options, hopts demoserver.HTTPOptions) (*demoserver.Server, *demoserver.HTTPServer) {
	srv := demoserver.New(opts)
	hs, err := srv.ListenHTTP("127.0.0.1:0", hopts)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Close(ctx)
	})
	return srv, hs
}

// tourEngine answers sampling, elicitation and roots, as exerciseEverything
// needs.
func tourEngine(t *testing.T) *mcpengine.Engine {
	return newEngine(t, mcpengine.Config{
		Roots: []messages.Root{{URI: "file:///work", Name: "work"}},
		Sampling: func(context.Context, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: mustSampling(messages.TextContent("ok"))}, nil
		},
		Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "ok": true}}, nil
		},
	})
}

func TestEveryFeatureOverEachHTTPTransportInProcess(t *testing.T) {
	cases := []struct {
		name, version string
		server        func(hs *demoserver.HTTPServer) mcpengine.ServerConfig
		answers       demoserver.AnswerMode
	}{
		{"streamable-sse-answers", messages.Version20251125, func(hs *demoserver.HTTPServer) mcpengine.ServerConfig {
			return mcpengine.ServerConfig{URL: hs.StreamableURL(), Type: "streamable-http"}
		}, demoserver.AnswerSSE},
		{"streamable-json-answers", messages.Version20250618, func(hs *demoserver.HTTPServer) mcpengine.ServerConfig {
			return mcpengine.ServerConfig{URL: hs.StreamableURL(), Type: "streamable-http"}
		}, demoserver.AnswerJSON},
		{"streamable-2025-03-26", messages.Version20250326, func(hs *demoserver.HTTPServer) mcpengine.ServerConfig {
			return mcpengine.ServerConfig{URL: hs.StreamableURL()}
		}, demoserver.AnswerAuto},
		{"legacy-sse", messages.Version20241105, func(hs *demoserver.HTTPServer) mcpengine.ServerConfig {
			return mcpengine.ServerConfig{URL: hs.SSEURL(), Type: "sse"}
		}, demoserver.AnswerAuto},
		{"websocket", messages.Version20251125, func(hs *demoserver.HTTPServer) mcpengine.ServerConfig {
			return mcpengine.ServerConfig{URL: hs.WebSocketURL()}
		}, demoserver.AnswerAuto},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, hs := demoHTTP(t, demoserver.Options{Versions: []string{c.version}}, demoserver.HTTPOptions{AnswerMode: c.answers})
			e := tourEngine(t)
			s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{Name: c.name, Server: c.server(hs)})
			require.NoError(t, err)
			require.Equal(t, c.version, s.ProtocolVersion())
			exerciseEverything(t, s, c.version)

			// A notification that answers no request (resources/updated)
			// arrives too: over Streamable HTTP on the standalone GET stream.
			ctx := testCtx(t, 10*time.Second)
			got := make(chan string, 8)
			stop := s.OnNotification(func(n mcpengine.Notification) {
				if n.Method == messages.NotificationResourcesUpdated {
					got <- string(n.Params)
				}
			})
			defer stop()
			require.NoError(t, s.Subscribe(ctx, "demo://resource/2"))
			_, err = s.CallTool(ctx, "touch", map[string]any{"uri": "demo://resource/2"})
			require.NoError(t, err)
			select {
			case p := <-got:
				assert.Contains(t, p, "demo://resource/2")
			case <-ctx.Done():
				t.Fatal("resources/updated never arrived")
			}
			assert.Zero(t, s.Stats().InvalidFrames)
		})
	}
}

// serveHTTPSubprocess runs `engine serve --transport KIND` as a real
// process and returns the URL it prints.
func serveHTTPSubprocess(t *testing.T, kind string, extra ...string) string {
	cmd := exec.Command(engineBin, append([]string{"serve", "--transport", kind, "--listen", "127.0.0.1:0"}, extra...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() { // exits when the server's stderr closes (Cleanup kills it)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "serving MCP over "+kind+" at "); ok {
				urls <- url
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("engine serve printed no URL")
		return ""
	}
}

// TestEveryFeatureOverHTTPToARealSubprocess tours every feature over each
// HTTP transport, against the demo server's default (both eras: the
// engine settles on 2026-07-28) and against it pinned to the handshake era.
func TestEveryFeatureOverHTTPToARealSubprocess(t *testing.T) {
	for _, era := range []struct{ name, want string }{{"both", messages.Version20260728}, {"legacy", messages.Version20251125}} {
		for _, kind := range []string{"http", "sse", "ws"} {
			t.Run(era.name+"/"+kind, func(t *testing.T) {
				url := serveHTTPSubprocess(t, kind, "--era", era.name)
				e := tourEngine(t)
				sc := mcpengine.ServerConfig{URL: url}
				if kind == "sse" {
					sc.Type = "sse"
				}
				s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{Name: kind, Server: sc})
				require.NoError(t, err)
				require.Equal(t, era.want, s.ProtocolVersion())
				exerciseEverything(t, s, s.ProtocolVersion())
			})
		}
	}
}

// Every answer stream is dropped after its priming event: each answer
// arrives only after the engine resumed with GET + Last-Event-ID. None is
// lost (every call returns its own result) and none is duplicated (no
// answer reaches a request that is no longer pending, and the server ran
// each call once).
func TestDroppedAnswerStreamsAreResumedWithoutLossOrDuplication(t *testing.T) {
	srv, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{AnswerMode: demoserver.AnswerSSE, DropStreamEvery: 1, DropAfterEvents: 1, SSERetry: 5 * time.Millisecond})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "resume", Server: mcpengine.ServerConfig{URL: hs.StreamableURL(), Type: "streamable-http"}})
	require.NoError(t, err)
	before := srv.Stats().ToolCalls["echo"]

	const calls = 40
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := strings.Repeat("x", i+1)
			res, err := s.CallTool(ctx, "echo", map[string]any{"text": want})
			if err == nil && (len(res.Content) != 1 || res.Content[0].Text != want) {
				err = errors.New("wrong answer: " + res.Content[0].Text)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.EqualValues(t, calls, srv.Stats().ToolCalls["echo"]-before, "each call ran once")
	assert.Zero(t, s.Stats().LateResponses, "no duplicated answer")
	assert.Zero(t, s.Stats().Restarts, "resumption never cost the session")
}

func TestExpiredHTTPSessionIsReinitialized(t *testing.T) {
	// Sessions, and their expiry, are of the handshake era.
	srv, hs := demoHTTP(t, demoserver.Options{Versions: messages.LegacyVersions}, demoserver.HTTPOptions{ExpireAfter: 5})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "expiry", Server: mcpengine.ServerConfig{URL: hs.StreamableURL()}})
	require.NoError(t, err)
	var lost int
	for range 20 {
		if err := s.Ping(ctx); err != nil {
			require.ErrorIs(t, err, mcpengine.ErrConnectionLost)
			require.ErrorIs(t, err, transport.ErrSessionExpired)
			lost++
			waitState(t, s, mcpengine.StateReady, 10*time.Second)
		}
	}
	assert.Positive(t, lost, "the server expired the session")
	assert.Positive(t, s.Stats().Restarts)
	assert.GreaterOrEqual(t, srv.Stats().Initialized, int64(2), "a new session was initialized")
	require.NoError(t, s.Ping(ctx))
}

func TestA5xxFailsOneRequestNotTheSession(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{FailNth: 4, FailStatus: 503})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "5xx", Server: mcpengine.ServerConfig{URL: hs.StreamableURL()}})
	require.NoError(t, err)
	var failed []error
	for range 6 {
		if err := s.Ping(ctx); err != nil {
			failed = append(failed, err)
		}
	}
	require.Len(t, failed, 1, "exactly the Nth request failed")
	require.ErrorIs(t, failed[0], mcpengine.ErrRequestFailed)
	assert.Contains(t, failed[0].Error(), "503")
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts, "the session was never dropped")
}

func TestLegacyOnlyServerIsReachedByFallback(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{Versions: []string{messages.Version20241105}}, demoserver.HTTPOptions{LegacyOnly: true})
	e := tourEngine(t)
	s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{Name: "fallback", Server: mcpengine.ServerConfig{URL: hs.StreamableURL()}})
	require.NoError(t, err)
	assert.Equal(t, messages.Version20241105, s.ProtocolVersion())
	exerciseEverything(t, s, messages.Version20241105)
}

func TestCrossOriginLegacyEndpointIsRefused(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{LegacyEndpointOrigin: "http://attacker.example:8080"})
	e := newEngine(t, mcpengine.Config{})
	_, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "forgery", Server: mcpengine.ServerConfig{URL: hs.SSEURL(), Type: "sse"}})
	var origin *legacysse.EndpointOriginError
	require.ErrorAs(t, err, &origin, "%v", err)
	assert.Contains(t, origin.Endpoint, "attacker.example")
	require.ErrorIs(t, err, mcpengine.ErrSessionClosed, "refused for good, not retried")
}
