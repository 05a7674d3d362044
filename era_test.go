package mcpengine_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/schemacheck"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// eraServer is one way to reach the demo server in a given era mode: as a
// real `engine serve` subprocess over stdio, or in process over
// Streamable HTTP (where the server's counters can be read).
type eraServer struct {
	name  string
	start func(t *testing.T, flags []string, opts demoserver.Options) (mcpengine.ServerConfig, *posts)
}

var eraServers = []eraServer{
	{"stdio", func(t *testing.T, flags []string, _ demoserver.Options) (mcpengine.ServerConfig, *posts) {
		return engineServe(flags...), nil
	}},
	{"http", func(t *testing.T, _ []string, opts demoserver.Options) (mcpengine.ServerConfig, *posts) {
		url, p := countingDemoHTTP(t, opts)
		return mcpengine.ServerConfig{URL: url, Type: "streamable-http"}, p
	}},
}

// posts counts the POSTs an HTTP server received per JSON-RPC method,
// whatever it answered (a legacy server refuses server/discover before any
// session sees it).
type posts struct {
	srv *demoserver.Server
	mu  sync.Mutex
	n   map[string]int64
}

func (p *posts) count(method string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[method]
}

// countingDemoHTTP serves the demo server's Streamable HTTP handler behind
// a counter of POSTs per method.
func countingDemoHTTP(t *testing.T, opts demoserver.Options) (string, *posts) {
	return countingDemo(t, opts, false)
}

// h2cEraServer reaches the in-process demo server over prior-knowledge
// h2c (ServerConfig.HTTP2PriorKnowledge): every request and listening
// stream of the engine on one HTTP/2 connection.
var h2cEraServer = eraServer{"h2c", func(t *testing.T, _ []string, opts demoserver.Options) (mcpengine.ServerConfig, *posts) {
	url, p := countingDemo(t, opts, true)
	return mcpengine.ServerConfig{URL: url, Type: "streamable-http", HTTP2PriorKnowledge: true}, p
}}

// countingDemo is countingDemoHTTP, speaking HTTP/1.1 and, with h2c,
// prior-knowledge h2c too.
func countingDemo(t *testing.T, opts demoserver.Options, h2c bool) (string, *posts) {
	srv := demoserver.New(opts)
	h := srv.StreamableHandler(demoserver.HTTPOptions{})
	p := &posts{srv: srv, n: map[string]int64{}}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
			}
			if messages.Unmarshal(body, &m) == nil {
				p.mu.Lock()
				p.n[m.Method]++
				p.mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	}))
	if h2c {
		var protos http.Protocols
		protos.SetHTTP1(true)
		protos.SetUnencryptedHTTP2(true)
		ts.Config.Protocols = &protos
	}
	ts.Start()
	closeDemoAtCleanup(t, h, ts)
	return ts.URL + demoserver.PathStreamable, p
}

// closeDemoAtCleanup closes, when the test ends, a demo server handler
// and the test server in front of it: the handler first, so that its
// open streams end before the server waits for its connections.
func closeDemoAtCleanup(t *testing.T, h interface{ Close(context.Context) error }, ts *httptest.Server) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx)
		ts.Close()
	})
}

// TestEraNegotiationAgainstEachServerMode connects with nothing pinned to
// the demo server in each era mode, over stdio and Streamable HTTP, and
// checks the version settled on and that the features work in it.
func TestEraNegotiationAgainstEachServerMode(t *testing.T) {
	modes := []struct {
		name        string
		flags       []string
		opts        demoserver.Options
		wantVersion string
		wantEra     string
	}{
		{"both eras (the default)", nil, demoserver.Options{},
			messages.Version20260728, mcpengine.EraModern},
		{"modern only", []string{"--era", "modern"}, demoserver.Options{Versions: messages.ModernVersions},
			messages.Version20260728, mcpengine.EraModern},
		{"legacy only", []string{"--era", "legacy"}, demoserver.Options{Versions: messages.LegacyVersions},
			messages.Version20251125, mcpengine.EraLegacy},
		{"initialize refused with -32022 naming an older version", []string{"--versions", "2025-06-18", "--refuse-initialize"},
			demoserver.Options{Versions: []string{messages.Version20250618}, RefuseInitialize: true},
			messages.Version20250618, mcpengine.EraLegacy},
	}
	for _, srvKind := range eraServers {
		for _, m := range modes {
			t.Run(srvKind.name+"/"+m.name, func(t *testing.T) {
				cfg, p := srvKind.start(t, m.flags, m.opts)
				e := newEngine(t, mcpengine.Config{})
				ctx := testCtx(t, 30*time.Second)
				s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "era", Server: cfg})
				require.NoError(t, err)
				assert.Equal(t, m.wantVersion, s.ProtocolVersion())
				assert.Equal(t, m.wantEra, s.Era())
				assert.Equal(t, "demoserver", s.ServerInfo().Name)
				if p != nil {
					assert.Equal(t, int64(1), p.count(messages.MethodServerDiscover), "one probe")
				}
				exerciseBothEras(t, s)
				if m.wantEra == mcpengine.EraModern {
					exerciseModernOnly(t, s)
				}
				if p != nil && m.wantEra == mcpengine.EraModern {
					// Cancelling over HTTP in 2026-07-28 is closing the
					// request's stream: no notifications/cancelled POST,
					// and the server's work on it stops.
					_, err := s.CallTool(ctx, "sleep", map[string]any{"ms": 30000}, mcpengine.WithTimeout(20*time.Millisecond))
					require.ErrorIs(t, err, mcpengine.ErrTimeout)
					require.NoError(t, p.srv.Await(ctx, func(st demoserver.Stats) bool { return st.ActiveSessions == 0 }))
					require.NoError(t, s.Ping(ctx))
					assert.Zero(t, p.count(messages.NotificationCancelled))
				}
				// The notification POST is a barrier for the requests
				// after it, so by now it has arrived if it was sent.
				if p != nil && m.wantEra == mcpengine.EraModern {
					assert.Zero(t, p.count(messages.MethodInitialize), "no initialize in the stateless era")
					assert.Zero(t, p.count(messages.NotificationInitialized), "no notifications/initialized in the stateless era")
					assert.Zero(t, p.count(messages.MethodPing), "Ping is a server/discover round trip")
				} else if p != nil {
					assert.Equal(t, int64(1), p.count(messages.NotificationInitialized))
				}
			})
		}
	}
}

// exerciseBothEras drives the features both eras share.
func exerciseBothEras(t *testing.T, s *mcpengine.Session) {
	ctx := testCtx(t, 20*time.Second)
	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, tools)
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "héllo"})
	require.NoError(t, err)
	assert.Equal(t, "héllo", res.Content[0].Text)
	var progress int
	var mu sync.Mutex
	_, err = s.CallTool(ctx, "progress", map[string]any{"steps": 2, "intervalMs": 0}, mcpengine.WithProgress(func(messages.ProgressParams) {
		mu.Lock()
		progress++
		mu.Unlock()
	}))
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, 2, progress)
	mu.Unlock()
	_, err = s.ListResources(ctx)
	require.NoError(t, err)
	_, err = s.ListResourceTemplates(ctx)
	require.NoError(t, err)
	rr, err := s.ReadResource(ctx, "demo://resource/1")
	require.NoError(t, err)
	require.NotEmpty(t, rr.Contents)
	_, err = s.ListPrompts(ctx)
	require.NoError(t, err)
	_, err = s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	_, err = s.Complete(ctx, &messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: messages.RefPrompt, Name: "greet"},
		Argument: messages.CompleteArgument{Name: "name", Value: "A"},
	})
	require.NoError(t, err)
	require.NoError(t, s.Ping(ctx))
	_, err = s.CallTool(ctx, "fail", nil)
	require.NoError(t, err, "a tool error is a result")
}

// exerciseModernOnly checks what the stateless era refuses before sending.
func exerciseModernOnly(t *testing.T, s *mcpengine.Session) {
	ctx := testCtx(t, 10*time.Second)
	_, err := s.Call(ctx, messages.MethodResourcesSubscribe, &messages.SubscribeParams{URI: "demo://resource/1"})
	require.ErrorIs(t, err, mcpengine.ErrNotInProtocolVersion)
	assert.True(t, mcpengine.SafeToRetry(err), "refused before sending")
	// Subscribe joins the filter of subscriptions/listen instead.
	require.NoError(t, s.Subscribe(ctx, "demo://resource/1"))
	waitListen(t, s, 10*time.Second, "open with the subscription", func(st mcpengine.ListenStatus) bool {
		return st.Phase == mcpengine.ListenOpen && st.Acknowledged != nil && len(st.Acknowledged.ResourceSubscriptions) == 1
	})
	require.NoError(t, s.Unsubscribe(ctx, "demo://resource/1"))
	waitListen(t, s, 10*time.Second, "closed", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenNone })
	// No logging/setLevel in this era: the session keeps the level for
	// every later request's _meta (log_level_test.go).
	require.NoError(t, s.SetLogLevel(ctx, "info"))
	_, err = s.Call(ctx, messages.MethodPing, nil)
	require.ErrorIs(t, err, mcpengine.ErrNotInProtocolVersion)
}

// TestNoCommonVersionFailsConnectAtOnceWithAPermanentTypedError: a server
// of the stateless era that speaks only a version the engine does not
// know answers the probe with -32022; the session closes for good (no
// backoff, no second probe) and Connect returns the typed error with the
// server's list.
func TestNoCommonVersionFailsConnectAtOnceWithAPermanentTypedError(t *testing.T) {
	for _, srvKind := range eraServers {
		t.Run(srvKind.name, func(t *testing.T) {
			cfg, p := srvKind.start(t, []string{"--versions", "2099-01-01"}, demoserver.Options{Versions: []string{"2099-01-01"}})
			e := newEngine(t, mcpengine.Config{})
			_, err := e.Connect(testCtx(t, 30*time.Second), mcpengine.SessionConfig{Name: "none", Server: cfg})
			require.Error(t, err)
			var nc *mcpengine.NoCommonVersionError
			require.ErrorAs(t, err, &nc)
			assert.Equal(t, []string{"2099-01-01"}, nc.Supported)
			var uv *mcpengine.UnsupportedVersionError
			require.ErrorAs(t, err, &uv, "the server's -32022 is kept")
			assert.Equal(t, messages.Version20260728, uv.Requested)
			assert.ErrorIs(t, err, mcpengine.ErrVersionMismatch)
			assert.ErrorIs(t, err, mcpengine.ErrSessionClosed, "closed for good, not backing off")
			assert.False(t, errors.Is(err, context.DeadlineExceeded))
			if p != nil {
				assert.Equal(t, int64(1), p.count(messages.MethodServerDiscover), "never asked again")
				assert.Zero(t, p.count(messages.MethodInitialize), "a modern refusal is no reason to fall back")
			}
		})
	}
}

// TestPinnedVersionsAreCheckedBeforeAnyTraffic: an unknown pinned version
// is a configuration error from Open, before the server is started or
// sent anything; a known one is spoken without the probe.
func TestPinnedVersionsAreCheckedBeforeAnyTraffic(t *testing.T) {
	srv, hs := demoHTTP(t, demoserver.Options{Versions: messages.KnownVersions}, demoserver.HTTPOptions{})
	server := mcpengine.ServerConfig{URL: hs.StreamableURL(), Type: "streamable-http"}

	for _, v := range []string{"2099-01-01", "2025-13-01", "latest"} {
		e := newEngine(t, mcpengine.Config{ProtocolVersion: v})
		_, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "pinned", Server: server})
		var ce *mcpengine.VersionConfigError
		require.ErrorAs(t, err, &ce, v)
		assert.Equal(t, v, ce.Version)
		_, err = e.Open(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "pinned", Server: engineServe()})
		require.ErrorAs(t, err, &ce)
	}
	assert.Zero(t, srv.Stats().Sessions, "nothing reached the server")

	for _, v := range []string{messages.Version20260728, messages.Version20250618} {
		e := newEngine(t, mcpengine.Config{ProtocolVersion: v})
		s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "pinned", Server: server})
		require.NoError(t, err)
		assert.Equal(t, v, s.ProtocolVersion())
	}
	assert.Equal(t, int64(1), srv.Stats().Methods[messages.MethodServerDiscover], "only the modern pin discovers")
	assert.Equal(t, int64(1), srv.Stats().Methods[messages.MethodInitialize], "the legacy pin initializes at once")
}

// TestPinnedModernAgainstALegacyServerFailsPermanently: a 2026-07-28 pin
// never falls back to initialize.
func TestPinnedModernAgainstALegacyServerFailsPermanently(t *testing.T) {
	e := newEngine(t, mcpengine.Config{ProtocolVersion: messages.Version20260728})
	_, err := e.Connect(testCtx(t, 30*time.Second), mcpengine.SessionConfig{Name: "legacy", Server: engineServe("--era", "legacy")})
	var nm *mcpengine.NotModernError
	require.ErrorAs(t, err, &nm)
	assert.ErrorIs(t, err, messages.ErrMethodNotFound, "the server's answer is kept")
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
}

// TestEraCacheSkipsTheProbeForLaterSessions: the engine remembers per
// server what it negotiated, so the second session to a legacy server goes
// straight to initialize, and to a server that refused the newest version
// straight to the version it named.
func TestEraCacheSkipsTheProbeForLaterSessions(t *testing.T) {
	t.Run("http, counted by the server", func(t *testing.T) {
		url, p := countingDemoHTTP(t, demoserver.Options{Versions: messages.LegacyVersions})
		e := newEngine(t, mcpengine.Config{})
		server := mcpengine.ServerConfig{URL: url, Type: "streamable-http"}
		for i, name := range []string{"first", "second", "third"} {
			s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: name, Server: server})
			require.NoError(t, err)
			assert.Equal(t, messages.Version20251125, s.ProtocolVersion())
			assert.Equal(t, int64(1), p.count(messages.MethodServerDiscover), "after session %d", i+1)
			assert.Equal(t, int64(i+1), p.count(messages.MethodInitialize))
		}
		// Another engine knows nothing yet.
		e2 := newEngine(t, mcpengine.Config{})
		_, err := e2.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "other", Server: server})
		require.NoError(t, err)
		assert.Equal(t, int64(2), p.count(messages.MethodServerDiscover))
	})
	t.Run("stdio, counted by the frames sent", func(t *testing.T) {
		e := newEngine(t, mcpengine.Config{})
		server := engineServe("--versions", "2025-06-18", "--refuse-initialize")
		var frames []uint64
		for _, name := range []string{"first", "second"} {
			s, err := e.Connect(testCtx(t, 30*time.Second), mcpengine.SessionConfig{Name: name, Server: server})
			require.NoError(t, err)
			assert.Equal(t, messages.Version20250618, s.ProtocolVersion())
			// Connect returns once the session is ready, which may be
			// before notifications/initialized, queued in the same turn,
			// is written; a ping's answer comes after it was.
			require.NoError(t, s.Ping(testCtx(t, 10*time.Second)))
			frames = append(frames, s.Stats().FramesOut)
		}
		// discover, initialize 2025-11-25 (refused), initialize 2025-06-18,
		// notifications/initialized, ping; then only the last three.
		assert.Equal(t, []uint64{5, 3}, frames)
	})
}

// TestEveryRequestOfTheModernEraValidatesAgainstIts2026Schema records
// what the engine writes to a server of both eras and checks every frame
// against the 2026-07-28 schema: each request carries the _meta the era
// requires, and nothing of the handshake era goes out.
func TestEveryRequestOfTheModernEraValidatesAgainstIts2026Schema(t *testing.T) {
	rec := &recorder{}
	e := newEngine(t, mcpengine.Config{ClientInfo: messages.Implementation{Name: "era-test", Version: "9"}})
	srv := demoserver.New(demoserver.Options{Versions: messages.KnownVersions})
	s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{
		Name: "schema", Dialer: recordingDialer{memoryDemo(t, srv), rec},
	})
	require.NoError(t, err)
	require.Equal(t, messages.Version20260728, s.ProtocolVersion())
	exerciseBothEras(t, s)
	exerciseModernOnly(t, s)
	s.SetRoots([]messages.Root{{URI: "file:///elsewhere"}}) // no notification in this era
	_, err = s.CallTool(testCtx(t, 10*time.Second), "sleep", map[string]any{"ms": 10000}, mcpengine.WithTimeout(10*time.Millisecond))
	require.ErrorIs(t, err, mcpengine.ErrTimeout)
	require.NoError(t, s.Ping(testCtx(t, 10*time.Second)))

	rec.mu.Lock()
	defer rec.mu.Unlock()
	seen := map[string]bool{}
	for _, frame := range rec.sent {
		require.NoError(t, schemacheck.Validate(messages.Version20260728, frame), "%s", frame)
		msgs, errs := messages.DecodeFrame(frame)
		require.Empty(t, errs)
		for _, m := range msgs {
			seen[m.Method] = true
			if m.Kind != messages.KindRequest {
				continue
			}
			var p struct {
				Meta map[string]messages.RawMessage `json:"_meta"`
			}
			require.NoError(t, messages.Unmarshal(m.Params, &p))
			assert.JSONEq(t, `"2026-07-28"`, string(p.Meta[messages.MetaProtocolVersion]), "%s", frame)
			assert.JSONEq(t, `{"name":"era-test","version":"9"}`, string(p.Meta[messages.MetaClientInfo]), "%s", frame)
			assert.JSONEq(t, `{}`, string(p.Meta[messages.MetaClientCapabilities]), "%s", frame)
		}
	}
	// And the demo server answers in the era: every result it sent
	// validates as that method's 2026-07-28 result (resultType included).
	sentMethods := map[string]string{}
	for _, frame := range rec.sent {
		msgs, _ := messages.DecodeFrame(frame)
		for _, m := range msgs {
			if m.Kind == messages.KindRequest {
				sentMethods[m.ID.String()] = m.Method
			}
		}
	}
	results := 0
	for _, frame := range rec.received {
		msgs, _ := messages.DecodeFrame(frame)
		for _, m := range msgs {
			if m.Kind == messages.KindResponse && m.Result != nil {
				method := sentMethods[m.ID.String()]
				require.NotEmpty(t, method)
				require.NoError(t, schemacheck.ValidateResult(messages.Version20260728, method, m.Result), "%s: %s", method, m.Result)
				results++
			}
		}
	}
	assert.Greater(t, results, 10)
	for _, want := range []string{messages.MethodServerDiscover, messages.MethodToolsList, messages.MethodToolsCall,
		messages.MethodResourcesList, messages.MethodResourcesTemplatesList, messages.MethodResourcesRead,
		messages.MethodPromptsList, messages.MethodPromptsGet, messages.MethodCompletionComplete, messages.NotificationCancelled} {
		assert.True(t, seen[want], "the test exercised %s", want)
	}
	for _, never := range []string{messages.MethodInitialize, messages.NotificationInitialized, messages.MethodPing,
		messages.MethodResourcesSubscribe, messages.MethodLoggingSetLevel} {
		assert.False(t, seen[never], "%s is not of the stateless era", never)
	}
}

// TestModernHTTPRefusalsAreTypedErrors: over Streamable HTTP the stateless
// era answers refusals with 400 and a JSON-RPC error body, which reaches
// the caller as the typed error (-32020 header mismatch, -32021 missing
// capability with its data) while the session stays up; an input_required
// answer asking for what no handler answers is an InputRequestError, not a
// result; the headers
// the engine sends mirror the body.
func TestModernHTTPRefusalsAreTypedErrors(t *testing.T) {
	var mu sync.Mutex
	var headers []http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		var req struct {
			ID     messages.ID `json:"id"`
			Method string      `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if messages.Unmarshal(body, &req) != nil || !req.ID.IsValid() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case req.Method == messages.MethodServerDiscover:
			_, _ = w.Write(messages.AppendResult(nil, req.ID, messages.RawMessage(
				`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"strict","version":"1"}}}`)))
		case req.Params.Name == "mismatch":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(messages.AppendError(nil, req.ID, &messages.WireError{Code: messages.CodeHeaderMismatch, Message: "Header mismatch: Mcp-Name"}))
		case req.Params.Name == "needs-input":
			_, _ = w.Write(messages.AppendResult(nil, req.ID, messages.RawMessage(
				`{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1"}`)))
		case req.Params.Name == "needs-elicitation":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(messages.AppendError(nil, req.ID, &messages.WireError{Code: messages.CodeMissingClientCapability,
				Message: "elicitation required", Data: messages.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`)}))
		default:
			_, _ = w.Write(messages.AppendResult(nil, req.ID, messages.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)))
		}
	}))
	t.Cleanup(ts.Close)

	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "strict", Server: mcpengine.ServerConfig{URL: ts.URL, Type: "streamable-http"}})
	require.NoError(t, err)
	require.Equal(t, messages.Version20260728, s.ProtocolVersion())
	assert.Equal(t, "strict", s.ServerInfo().Name)

	_, err = s.CallTool(ctx, "mismatch", nil)
	var hm *mcpengine.HeaderMismatchError
	require.ErrorAs(t, err, &hm)
	assert.ErrorIs(t, err, messages.ErrHeaderMismatch)

	_, err = s.CallTool(ctx, "needs-elicitation", nil)
	var mc *mcpengine.MissingCapabilityError
	require.ErrorAs(t, err, &mc)
	assert.NotNil(t, mc.RequiredCapabilities.Elicitation)
	assert.True(t, mc.Permanent())

	// An input_required answer is not handed over as the result; an
	// input request the engine has no handler for ends the call.
	_, err = s.CallTool(ctx, "needs-input", nil)
	var ire *mcpengine.InputRequestError
	require.ErrorAs(t, err, &ire)
	assert.ErrorIs(t, err, mcpengine.ErrNoInputHandler)
	assert.Equal(t, "who", ire.Key)
	assert.Equal(t, messages.MethodElicitationCreate, ire.Request)

	_, err = s.CallTool(ctx, "caf\u00e9 tool", nil)
	require.NoError(t, err)
	assert.Equal(t, mcpengine.StateReady, s.State())

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, headers, 5)
	for _, h := range headers {
		assert.Equal(t, messages.Version20260728, h.Get("Mcp-Protocol-Version"))
		assert.Empty(t, h.Get("Mcp-Session-Id"))
	}
	assert.Equal(t, messages.MethodServerDiscover, headers[0].Get("Mcp-Method"))
	assert.Empty(t, headers[0].Values("Mcp-Name"))
	assert.Equal(t, messages.MethodToolsCall, headers[1].Get("Mcp-Method"))
	assert.Equal(t, "mismatch", headers[1].Get("Mcp-Name"))
	assert.Equal(t, "=?base64?Y2Fmw6kgdG9vbA==?=", headers[4].Get("Mcp-Name"), "a name that is not plain ASCII is Base64 encoded")
	assert.False(t, strings.Contains(headers[4].Get("Mcp-Name"), "é"))
}

// TestReconnectsStartWhereTheLastHandshakeEnded: each server process
// closes its stdout on its fourth request, so the budget shows what a
// reconnect sends. A legacy server's reconnect skips the probe (two pings
// fit after initialize); a stateless server is re-discovered and served in
// 2026-07-28 again.
func TestReconnectsStartWhereTheLastHandshakeEnded(t *testing.T) {
	for _, c := range []struct {
		name    string
		flags   []string
		version string
	}{
		{"legacy: the probe is skipped", []string{"--era", "legacy"}, messages.Version20251125},
		{"modern: re-discovered", []string{"--era", "modern"}, messages.Version20260728},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "reconnect", Server: engineServe(append(c.flags, "--close-after", "3")...)})
			require.NoError(t, err)
			// legacy: discover (refused), initialize, ping; modern:
			// discover, ping (a discover), ping.
			require.NoError(t, s.Ping(ctx))
			if c.version == messages.Version20260728 {
				require.NoError(t, s.Ping(ctx))
			}
			require.ErrorIs(t, s.Ping(ctx), mcpengine.ErrConnectionLost)
			waitState(t, s, mcpengine.StateReady, 10*time.Second)
			assert.Equal(t, c.version, s.ProtocolVersion())
			// One handshake request (initialize, or discover), two pings.
			require.NoError(t, s.Ping(ctx))
			require.NoError(t, s.Ping(ctx))
			res, err := s.CallTool(ctx, "echo", map[string]any{"text": "x"})
			require.ErrorIs(t, err, mcpengine.ErrConnectionLost, "%v", res)
		})
	}
}

// TestALegacyServerThatNeverAnswersTheProbeIsReachedThroughInitialize:
// some servers of the handshake era say nothing to a request before
// initialize; the probe's own timeout (at most a second) counts that
// silence as their era, and the session becomes ready in time. The
// probe's timeout and its answer after initialize (this server's "method
// not found", late) are no failure: Stats counts neither (issue 27, item 5).
func TestALegacyServerThatNeverAnswersTheProbeIsReachedThroughInitialize(t *testing.T) {
	silent := memory.NewDialer("silent", func(conn transport.Conn) {
		defer conn.Close(context.Background())
		var probe messages.ID
		for {
			frame, err := conn.ReadFrame()
			if err != nil {
				return
			}
			msgs, _ := messages.DecodeFrame(frame)
			for _, m := range msgs {
				switch {
				case m.Kind == messages.KindRequest && m.Method == messages.MethodServerDiscover:
					probe = m.ID
				case m.Kind == messages.KindRequest && m.Method == messages.MethodInitialize:
					_ = conn.WriteFrames(messages.AppendResult(nil, m.ID, messages.RawMessage(
						`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"silent","version":"1"}}`)))
				case m.Method == messages.NotificationInitialized:
					_ = conn.WriteFrames(messages.AppendError(nil, probe, &messages.WireError{Code: -32601, Message: "method not found"}))
				case m.Kind == messages.KindRequest:
					_ = conn.WriteFrames(messages.AppendResult(nil, m.ID, messages.RawMessage(`{}`)))
				}
			}
		}
	})
	e := newEngine(t, mcpengine.Config{InitTimeout: 2 * time.Second})
	s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "silent", Dialer: silent})
	require.NoError(t, err)
	assert.Equal(t, messages.Version20250618, s.ProtocolVersion())
	// The ping is answered after the probe's late answer (one stream).
	require.NoError(t, s.Ping(testCtx(t, 10*time.Second)))
	assert.Zero(t, s.Stats().Timeouts, "the probe's timeout is no failure")
	assert.Zero(t, s.Stats().LateResponses, "the probe's late answer is no failure")
}
