package gateway_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// twoServers is a gateway in front of "a", the demo server as a stdio
// subprocess, and "b", the demo server over Streamable HTTP without
// resources (so that every resource URI has one server). Both speak only
// the handshake era: these tests follow what the gateway relays of that
// era (server requests, notifications/cancelled, setLevel, subscriptions,
// roots/list_changed); era_test.go covers upstreams of 2026-07-28.
func twoServers(t *testing.T, mutate func(*gateway.Config)) (*demoserver.Server, *gateway.Gateway, *gateway.HTTPServer) {
	t.Helper()
	bsrv, b := demoHTTP(t, demoserver.Options{Resources: -1, Versions: messages.LegacyVersions})
	cfg := gateway.Config{Servers: map[string]gateway.Server{
		"a": {Target: engineServe("--era", "legacy")},
		"b": {Target: mcpengine.ServerConfig{URL: b.StreamableURL(), Type: "streamable-http"}},
	}}
	if mutate != nil {
		mutate(&cfg)
	}
	g, hs := startGateway(t, cfg)
	return bsrv, g, hs
}

// fullClient is an engine whose sessions take every server request.
func fullClient(t *testing.T) *mcpengine.Engine { return clientEngine(t, fullConfig()) }

// serverRequestsReachTheClient calls the sample, elicit and roots tools of
// servers "a" and "b" on s, a session of a fullClient configuration, and
// checks that the client's answers came back.
func serverRequestsReachTheClient(t *testing.T, ctx context.Context, s *mcpengine.Session) {
	t.Helper()
	for _, server := range []string{"a", "b"} {
		res, err := s.CallTool(ctx, server+"__sample", map[string]any{"prompt": "hi from " + server})
		require.NoError(t, err)
		assert.Equal(t, "sampled: hi from "+server, toolText(t, res), "sampling through %s", server)

		res, err = s.CallTool(ctx, server+"__elicit", map[string]any{"message": "who?"})
		require.NoError(t, err)
		assert.Contains(t, toolText(t, res), "action=accept")
		assert.Contains(t, toolText(t, res), "Ada")

		res, err = s.CallTool(ctx, server+"__roots", map[string]any{})
		require.NoError(t, err)
		assert.Contains(t, toolText(t, res), "file:///work/project", "roots through %s", server)
	}
}

// fullConfig is fullClient's configuration.
func fullConfig() mcpengine.Config {
	return mcpengine.Config{
		Sampling: func(_ context.Context, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			blocks, err := p.Messages[0].Blocks()
			if err != nil {
				return nil, err
			}
			res := &messages.CreateMessageResult{Role: messages.RoleAssistant, Model: "test-model"}
			return res, res.SetContent(messages.TextContent("sampled: " + blocks[0].Text))
		},
		Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "confirm": true}}, nil
		},
		Roots: []messages.Root{{URI: "file:///work/project", Name: "project"}},
	}
}

func names[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	return out
}

func TestAggregatedEndpointServesEveryServerUnderItsPrefix(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	s := connect(t, clientEngine(t, mcpengine.Config{}), "agg", gw, "")
	ctx := testCtx(t, 30*time.Second)

	assert.Equal(t, "mcpengine-gateway", s.ServerInfo().Name)
	assert.Contains(t, s.Instructions(), "a: a__")

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	tn := names(tools, func(x messages.Tool) string { return x.Name })
	for _, want := range []string{"a__echo", "a__sample", "b__echo", "b__sleep"} {
		assert.Contains(t, tn, want)
	}
	assert.Len(t, tn, 26, "13 demo tools from each server")
	for _, n := range tn {
		assert.True(t, strings.HasPrefix(n, "a__") || strings.HasPrefix(n, "b__"), n)
	}

	res, err := s.CallTool(ctx, "a__add", map[string]any{"a": 1, "b": 2})
	require.NoError(t, err)
	assert.JSONEq(t, `{"sum":3}`, string(res.StructuredContent))
	res, err = s.CallTool(ctx, "b__echo", map[string]any{"text": "via b"})
	require.NoError(t, err)
	assert.Equal(t, "via b", toolText(t, res))

	_, err = s.CallTool(ctx, "c__echo", map[string]any{"text": "x"})
	var werr *mcpengine.RPCError
	require.ErrorAs(t, err, &werr)
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)

	resources, err := s.ListResources(ctx)
	require.NoError(t, err)
	assert.Len(t, resources, 100, "a's resources; b has none")
	assert.Equal(t, "demo://resource/1", resources[0].URI, "URIs are not renamed")
	assert.True(t, strings.HasPrefix(resources[0].Name, "a__"), resources[0].Name)
	rr, err := s.ReadResource(ctx, "demo://resource/3")
	require.NoError(t, err)
	require.Len(t, rr.Contents, 1)
	assert.Equal(t, "demo://resource/3", rr.Contents[0].URI)
	templates, err := s.ListResourceTemplates(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, templates)
	// A URI no server lists reaches the server whose template makes it.
	_, err = s.ReadResource(ctx, "demo://resource/100")
	require.NoError(t, err)

	prompts, err := s.ListPrompts(ctx)
	require.NoError(t, err)
	assert.Contains(t, names(prompts, func(p messages.Prompt) string { return p.Name }), "b__greet")
	pr, err := s.GetPrompt(ctx, "b__greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	require.NotEmpty(t, pr.Messages)

	cr, err := s.Complete(ctx, &messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: messages.RefPrompt, Name: "a__summarize"},
		Argument: messages.CompleteArgument{Name: "style", Value: "b"},
	})
	require.NoError(t, err)
	assert.Contains(t, cr.Completion.Values, "brief")

	require.NoError(t, s.Ping(ctx))
}

func TestAggregatedEndpointForwardsServerRequestsToTheClient(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	s := connect(t, fullClient(t), "agg", gw, "")
	ctx := testCtx(t, 30*time.Second)

	serverRequestsReachTheClient(t, ctx, s)
}

func TestAggregatedEndpointRefusesServerRequestsOfAClientWithoutTheCapability(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	s := connect(t, clientEngine(t, mcpengine.Config{}), "bare", gw, "")
	res, err := s.CallTool(testCtx(t, 30*time.Second), "b__sample", map[string]any{"prompt": "hi"})
	require.NoError(t, err)
	assert.True(t, res.IsError, "the demo tool turns the refused sampling into a tool error")
	assert.Contains(t, toolText(t, res), "capability")
}

func TestAggregatedEndpointForwardsProgressAndCancellation(t *testing.T) {
	bsrv, _, gw := twoServers(t, nil)
	s := connect(t, clientEngine(t, mcpengine.Config{}), "agg", gw, "")
	ctx := testCtx(t, 30*time.Second)

	var mu sync.Mutex
	var got []float64
	res, err := s.CallTool(ctx, "a__progress", map[string]any{"steps": 3, "intervalMs": 5},
		mcpengine.WithProgress(func(p messages.ProgressParams) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
		}))
	require.NoError(t, err)
	assert.False(t, res.IsError)
	// The engine's client runs progress callbacks on its own dispatcher,
	// after the call may have returned.
	eventually(t, 5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 3 }, "three progress notifications")
	mu.Lock()
	assert.Equal(t, []float64{1, 2, 3}, got)
	mu.Unlock()

	// The client gives up on a long call: the server is told.
	before := bsrv.Stats().CancelledCalls
	cctx, cancel := context.WithCancel(ctx)
	stop := time.AfterFunc(300*time.Millisecond, cancel)
	defer stop.Stop()
	start := time.Now()
	_, err = s.CallTool(cctx, "b__sleep", map[string]any{"ms": 30000})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)
	eventually(t, 10*time.Second, func() bool { return bsrv.Stats().CancelledCalls == before+1 }, "the upstream call was not cancelled")
}

func TestAggregatedEndpointPropagatesNotifications(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	s := connect(t, clientEngine(t, mcpengine.Config{}), "agg", gw, "")
	ctx := testCtx(t, 30*time.Second)

	var log notificationLog
	s.OnNotification(log.add)
	seen := log.seen

	_, err := s.ListTools(ctx)
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "a__notify", map[string]any{"kind": "tools"})
	require.NoError(t, err)
	eventually(t, 10*time.Second, seen(messages.NotificationToolsListChanged, ""), "tools/list_changed")
	tools, err := s.ListTools(ctx) // refetched after the change
	require.NoError(t, err)
	assert.Len(t, tools, 26)

	require.NoError(t, s.Subscribe(ctx, "demo://resource/5"))
	_, err = s.CallTool(ctx, "a__touch", map[string]any{"uri": "demo://resource/5"})
	require.NoError(t, err)
	eventually(t, 10*time.Second, seen(messages.NotificationResourcesUpdated, "demo://resource/5"), "resources/updated")

	_, err = s.CallTool(ctx, "b__log", map[string]any{"level": "warning", "message": "careful"})
	require.NoError(t, err)
	eventually(t, 10*time.Second, seen(messages.NotificationMessage, "careful"), "log message")
}

// rawFrontSession opens a session of the aggregated endpoint by hand.
func rawFrontSession(t *testing.T, gw *gateway.HTTPServer, token, capabilities string) []string {
	t.Helper()
	status, body, h := post(t, gw.MCPURL(), token, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":`+capabilities+`,"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Equal(t, 200, status, "%s", body)
	sid := h.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	return []string{"Mcp-Session-Id", sid}
}

func TestAggregatedEndpointSendsProgressBeforeTheAnswerUnderTheClientsToken(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	hdr := rawFrontSession(t, gw, "", `{}`)
	for _, server := range []string{"a", "b"} {
		status, body, h := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+server+`__progress","arguments":{"steps":2,"intervalMs":1},"_meta":{"progressToken":"client-tok"}}}`, hdr...)
		require.Equal(t, 200, status)
		require.Equal(t, "text/event-stream", h.Get("Content-Type"))
		events := strings.Split(strings.TrimSpace(string(body)), "\n\n")
		require.Len(t, events, 4, "%s", body)
		assert.NotContains(t, events[0], "jsonrpc", "the stream is primed with an id to resume from")
		assert.Contains(t, events[0], "id: ")
		events = events[1:]
		for i, e := range events[:2] {
			assert.Contains(t, e, `"method":"notifications/progress"`, "event %d via %s", i, server)
			assert.Contains(t, e, `"progressToken":"client-tok"`, "the client's own token via %s", server)
		}
		assert.Contains(t, events[2], `"id":1,"result"`)
	}
}

func TestAggregatedEndpointAnnouncesAServerGoingDown(t *testing.T) {
	// crashy exits on its sixth request (the era probe, initialize, two
	// pages of tools/list, one call); its session then stays in backoff.
	g, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{"stable": {Target: engineServe()}, "crashy": {Target: engineServe("--exit-after", "5")}},
		Engine:  mcpengine.Config{Backoff: mcpengineBackoffHour()},
	})
	s := connect(t, clientEngine(t, mcpengine.Config{}), "agg", gw, "")
	ctx := testCtx(t, 30*time.Second)
	changed := make(chan struct{}, 8)
	s.OnNotification(func(n mcpengine.Notification) {
		if n.Method == messages.NotificationToolsListChanged {
			changed <- struct{}{}
		}
	})
	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, tools, 26)

	_, err = s.CallTool(ctx, "crashy__echo", map[string]any{"text": "x"})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "crashy__echo", map[string]any{"text": "x"})
	var werr *mcpengine.RPCError
	require.ErrorAs(t, err, &werr)
	assert.Equal(t, int64(gateway.CodeUnavailable), werr.Code)

	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed when the server went down")
	}
	tools, err = s.ListTools(ctx)
	require.NoError(t, err)
	for _, tool := range tools {
		assert.True(t, strings.HasPrefix(tool.Name, "stable__"), "%s listed while its server is down", tool.Name)
	}
	assert.Len(t, tools, 13)
	assert.Equal(t, "degraded", g.Health().Status)
}

// A client's roots/list_changed reaches the servers it may use: the
// gateway's sessions told their servers they would send it.
func TestAClientsRootsListChangedReachesTheServers(t *testing.T) {
	bsrv, _, gw := twoServers(t, nil)
	s := connect(t, fullClient(t), "roots", gw, "")
	before := bsrv.Stats().RootsListChanged
	s.SetRoots([]messages.Root{{URI: "file:///work/other", Name: "other"}})
	require.Eventually(t, func() bool { return bsrv.Stats().RootsListChanged > before },
		10*time.Second, 5*time.Millisecond, "server b heard of the change")
	assert.Equal(t, before+1, bsrv.Stats().RootsListChanged, "once per change and session")
}
