package mcpengine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

func connectMemory(t *testing.T, e *mcpengine.Engine, srv *demoserver.Server) *mcpengine.Session {
	t.Helper()
	s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: t.Name(), Dialer: memoryDemo(t, srv)})
	require.NoError(t, err)
	return s
}

func TestHandshakeNegotiatesNewestVersionAndRecordsServerFacts(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions})
	s := connectMemory(t, e, srv)

	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Equal(t, messages.LatestVersion, s.ProtocolVersion())
	assert.Equal(t, "demoserver", s.ServerInfo().Name)
	assert.NotNil(t, s.Capabilities().Tools)
	assert.NotEmpty(t, s.Instructions())
	require.NoError(t, srv.Await(testCtx(t, 5*time.Second), func(st demoserver.Stats) bool { return st.Initialized == 1 }))
}

func TestAcceptsAnOlderSupportedVersionTheServerAnswers(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{Versions: []string{messages.Version20241105}})
	s := connectMemory(t, e, srv)
	assert.Equal(t, messages.Version20241105, s.ProtocolVersion())
	require.NoError(t, s.Ping(testCtx(t, 5*time.Second)))
}

func TestStrictModeRefusesAnyOtherVersionAndClosesAfterTheBudget(t *testing.T) {
	e := newEngine(t, mcpengine.Config{ProtocolVersion: messages.Version20241105, StrictVersion: true, RestartBudget: 2})
	srv := demoserver.New(demoserver.Options{Versions: []string{messages.Version20250618}})
	_, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "strict", Dialer: memoryDemo(t, srv)})
	require.Error(t, err)
	assert.ErrorIs(t, err, mcpengine.ErrVersionMismatch)
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
	var vm *mcpengine.VersionMismatchError
	require.ErrorAs(t, err, &vm)
	assert.Equal(t, messages.Version20250618, vm.Answered)
	// one first attempt plus two budgeted retries
	assert.Equal(t, int64(3), srv.Stats().Methods[messages.MethodInitialize])
}

func TestEveryTypedHelperRoundTrips(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	// Versions: SetLogLevel and Ping are helpers of the handshake era.
	srv := demoserver.New(demoserver.Options{Resources: 25, PageSize: 10, Versions: messages.LegacyVersions})
	s := connectMemory(t, e, srv)
	ctx := testCtx(t, 10*time.Second)

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	assert.True(t, names["echo"] && names["touch"], "all tools across pages: %v", names)

	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "hello"})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "hello", res.Content[0].Text)
	assert.False(t, res.IsError)

	res, err = s.CallTool(ctx, "fail", map[string]any{"message": "boom"})
	require.NoError(t, err)
	assert.True(t, res.IsError)

	resources, err := s.ListResources(ctx)
	require.NoError(t, err)
	require.Len(t, resources, 25, "pagination walks every page exactly once")
	seen := map[string]bool{}
	for _, r := range resources {
		assert.False(t, seen[r.URI], "duplicate %s", r.URI)
		seen[r.URI] = true
	}
	page, err := s.ListResourcesPage(ctx, "")
	require.NoError(t, err)
	assert.Len(t, page.Resources, 10)
	assert.NotEmpty(t, page.NextCursor)

	templates, err := s.ListResourceTemplates(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, templates)

	read, err := s.ReadResource(ctx, resources[0].URI)
	require.NoError(t, err)
	require.NotEmpty(t, read.Contents)

	_, err = s.ReadResource(ctx, "demo://no/such/thing")
	assert.ErrorIs(t, err, messages.ErrResourceNotFound)
	var rpc *mcpengine.RPCError
	require.ErrorAs(t, err, &rpc)

	prompts, err := s.ListPrompts(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, prompts)
	got, err := s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	require.NotEmpty(t, got.Messages)
	assert.Contains(t, got.Messages[0].Content.Text, "Ada")

	comp, err := s.Complete(ctx, &messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: messages.CompleteArgument{Name: "name", Value: "A"},
	})
	require.NoError(t, err)
	assert.NotEmpty(t, comp.Completion.Values)

	require.NoError(t, s.SetLogLevel(ctx, "debug"))
	require.NoError(t, s.Ping(ctx))

	_, err = s.Call(ctx, "no/such/method", nil)
	assert.ErrorIs(t, err, messages.ErrMethodNotFound)
}

func TestProgressReachesTheCallsHandlerInOrder(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectMemory(t, e, demoserver.New(demoserver.Options{}))
	var mu sync.Mutex
	var seen []float64
	res, err := s.CallTool(testCtx(t, 10*time.Second), "progress", map[string]any{"steps": 5, "intervalMs": 1},
		mcpengine.WithProgress(func(p messages.ProgressParams) {
			mu.Lock()
			seen = append(seen, p.Progress)
			mu.Unlock()
		}))
	require.NoError(t, err)
	assert.False(t, res.IsError)
	// Every progress notification the server sent before its answer has
	// been delivered by the time the call returns: no waiting here.
	mu.Lock()
	assert.Equal(t, []float64{1, 2, 3, 4, 5}, seen)
	mu.Unlock()
}

func TestResetOnProgressKeepsASlowButTalkingCallAlive(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectMemory(t, e, demoserver.New(demoserver.Options{}))
	// 20 steps 20ms apart = 400ms in all, against a 250ms timeout that each
	// step resets: the gaps (20ms) leave a wide margin on a loaded machine.
	args := map[string]any{"steps": 20, "intervalMs": 20}
	res, err := s.CallTool(testCtx(t, 10*time.Second), "progress", args,
		mcpengine.WithTimeout(250*time.Millisecond), mcpengine.WithResetOnProgress(5*time.Second))
	require.NoError(t, err)
	assert.False(t, res.IsError)

	// Without reset the same call times out (a slower machine only makes
	// the call longer).
	_, err = s.CallTool(testCtx(t, 10*time.Second), "progress", args, mcpengine.WithTimeout(250*time.Millisecond))
	assert.ErrorIs(t, err, mcpengine.ErrTimeout)

	// The total cap wins over resets: progress keeps coming, but 300ms
	// after sending the call is over.
	_, err = s.CallTool(testCtx(t, 10*time.Second), "progress", args,
		mcpengine.WithTimeout(250*time.Millisecond), mcpengine.WithResetOnProgress(300*time.Millisecond))
	assert.ErrorIs(t, err, mcpengine.ErrTimeout)
}

func TestCancellationReachesTheServerAndForgetsTheRequest(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{})
	s := connectMemory(t, e, srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "sleep", map[string]any{"ms": 60000})
		done <- err
	}()
	require.NoError(t, srv.Await(testCtx(t, 5*time.Second), func(st demoserver.Stats) bool { return st.ToolCalls["sleep"] == 1 }))
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	require.NoError(t, srv.Await(testCtx(t, 5*time.Second), func(st demoserver.Stats) bool { return st.CancelledCalls == 1 }))
	require.NoError(t, s.Ping(testCtx(t, 5*time.Second)), "session unaffected")
}

func TestTimeoutSendsCancelledAndFailsWithTypedError(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{})
	s := connectMemory(t, e, srv)
	start := time.Now()
	_, err := s.CallTool(context.Background(), "sleep", map[string]any{"ms": 60000}, mcpengine.WithTimeout(50*time.Millisecond))
	assert.ErrorIs(t, err, mcpengine.ErrTimeout)
	var te *mcpengine.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.NoError(t, srv.Await(testCtx(t, 5*time.Second), func(st demoserver.Stats) bool { return st.CancelledCalls == 1 }))
}

func TestServerToClientRequestsUseTheConfiguredHandlers(t *testing.T) {
	e := newEngine(t, mcpengine.Config{
		Roots: []messages.Root{{URI: "file:///work", Name: "work"}},
		Sampling: func(ctx context.Context, req *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			return &messages.CreateMessageResult{Role: "assistant", Model: "test-model", Content: mustSampling(messages.TextContent("sampled!"))}, nil
		},
		Elicitation: func(ctx context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "ok": true}}, nil
		},
	})
	// Versions: server-to-client requests and roots/list_changed are of
	// the handshake era (input_rounds_test.go covers the same handlers in
	// 2026-07-28's input_required rounds).
	srv := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions})
	s := connectMemory(t, e, srv)
	ctx := testCtx(t, 10*time.Second)

	res, err := s.CallTool(ctx, "sample", map[string]any{"prompt": "hi"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.Contains(t, res.Content[0].Text, "sampled!")

	res, err = s.CallTool(ctx, "elicit", map[string]any{"message": "who?"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.Contains(t, res.Content[0].Text, "accept")

	res, err = s.CallTool(ctx, "roots", nil)
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.Contains(t, res.Content[0].Text, "file:///work")

	s.SetRoots([]messages.Root{{URI: "file:///other"}})
	require.NoError(t, srv.Await(ctx, func(st demoserver.Stats) bool { return st.RootsListChanged == 1 }))
	res, err = s.CallTool(ctx, "roots", nil)
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].Text, "file:///other")
}

func TestWithoutHandlersServerRequestsGetMethodNotFound(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	// Server-to-client requests are of the handshake era (2026-07-28 asks
	// with input_required, refused with -32021 before any request).
	s := connectMemory(t, e, demoserver.New(demoserver.Options{Versions: messages.LegacyVersions}))
	// Nothing was advertised, the demo server asks anyway: each request is
	// refused with -32601, which the demo tool reports in its result.
	for tool, args := range map[string]any{
		"sample": map[string]any{"prompt": "hi"},
		"elicit": map[string]any{"message": "who?"},
		"roots":  nil,
	} {
		res, err := s.CallTool(testCtx(t, 10*time.Second), tool, args)
		require.NoError(t, err)
		require.True(t, res.IsError, tool)
		assert.Contains(t, res.Content[0].Text, "-32601", tool)
	}
}

func TestNotificationsReachSubscribersInOrder(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	// Versions: resources/subscribe and logging/setLevel are of the
	// handshake era (listen_test.go covers 2026-07-28's listen).
	s := connectMemory(t, e, demoserver.New(demoserver.Options{Versions: messages.LegacyVersions}))
	ctx := testCtx(t, 10*time.Second)
	got := make(chan mcpengine.Notification, 16)
	stop := s.OnNotification(func(n mcpengine.Notification) { got <- n })
	defer stop()

	_, err := s.CallTool(ctx, "notify", map[string]any{"kind": "tools"})
	require.NoError(t, err)
	require.NoError(t, s.Subscribe(ctx, "demo://resource/1"))
	_, err = s.CallTool(ctx, "touch", map[string]any{"uri": "demo://resource/1"})
	require.NoError(t, err)
	require.NoError(t, s.SetLogLevel(ctx, "info"))
	_, err = s.CallTool(ctx, "log", map[string]any{"level": "error", "message": "disk on fire"})
	require.NoError(t, err)

	want := []string{messages.NotificationToolsListChanged, messages.NotificationResourcesUpdated, messages.NotificationMessage}
	for _, w := range want {
		select {
		case n := <-got:
			assert.Equal(t, w, n.Method)
		case <-ctx.Done():
			t.Fatalf("missing %s", w)
		}
	}
}

func TestInFlightCapRefusesTheExcessWithATypedError(t *testing.T) {
	e := newEngine(t, mcpengine.Config{MaxInFlight: 4})
	s := connectMemory(t, e, demoserver.New(demoserver.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CallTool(ctx, "sleep", map[string]any{"ms": 60000})
			errs <- err
		}()
	}
	refused := 0
	for i := 0; i < 6; i++ {
		err := <-errs
		require.ErrorIs(t, err, mcpengine.ErrTooManyInFlight)
		assert.True(t, mcpengine.SafeToRetry(err))
		refused++
	}
	cancel()
	wg.Wait()
	assert.Equal(t, 6, refused)
}

func TestFutureAwaitDoneAndCancel(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{})
	s := connectMemory(t, e, srv)
	ctx := testCtx(t, 10*time.Second)

	f := s.CallToolAsync(ctx, "echo", map[string]any{"text": "async"})
	<-f.Done()
	res, err := f.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "async", res.Content[0].Text)

	slow := s.CallToolAsync(ctx, "sleep", map[string]any{"ms": 60000})
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	_, err = slow.Await(short)
	cancel()
	assert.ErrorIs(t, err, context.DeadlineExceeded, "Await's ctx does not cancel the request")
	_, ok, _ := slow.Result()
	assert.False(t, ok)
	slow.Cancel()
	_, err = slow.Await(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	require.NoError(t, srv.Await(ctx, func(st demoserver.Stats) bool { return st.CancelledCalls == 1 }))
}

func TestEngineNamesSessionsAndRefusesDuplicates(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{})
	for _, name := range []string{"b", "a", "c"} {
		_, err := e.Connect(testCtx(t, 5*time.Second), mcpengine.SessionConfig{Name: name, Dialer: memoryDemo(t, srv)})
		require.NoError(t, err)
	}
	_, err := e.Open(testCtx(t, 5*time.Second), mcpengine.SessionConfig{Name: "a", Dialer: memoryDemo(t, srv)})
	assert.ErrorIs(t, err, mcpengine.ErrDuplicateName)
	var names []string
	for _, s := range e.Sessions() {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	s, err := e.Session("b")
	require.NoError(t, err)
	require.NoError(t, s.Close(testCtx(t, 5*time.Second)))
	_, err = e.Session("b")
	assert.ErrorIs(t, err, mcpengine.ErrUnknownSession)
	err = s.Ping(testCtx(t, 5*time.Second))
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
}

func TestCallsMadeBeforeReadyWaitOrFailFast(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	gate := make(chan struct{})
	srv := demoserver.New(demoserver.Options{})
	base := memoryDemo(t, srv)
	s, err := e.Open(testCtx(t, 5*time.Second), mcpengine.SessionConfig{Name: "gated", Dialer: gatedDialer{base, gate}})
	require.NoError(t, err)

	// tools/list, which both eras have (the demo server's default
	// negotiates 2026-07-28, which has no ping).
	list := func(ctx context.Context, opts ...mcpengine.CallOption) error {
		_, err := s.ListToolsPage(ctx, "", opts...)
		return err
	}
	err = list(testCtx(t, 5*time.Second), mcpengine.FailFast())
	assert.ErrorIs(t, err, mcpengine.ErrNotReady)
	assert.True(t, mcpengine.SafeToRetry(err))

	done := make(chan error, 2)
	go func() { done <- list(testCtx(t, 10*time.Second)) }()
	// A Ping waits for the era before it picks its request (2026-07-28
	// has no ping: server/discover stands in).
	go func() { done <- s.Ping(testCtx(t, 10*time.Second)) }()
	close(gate)
	require.NoError(t, <-done, "a queued call goes out once ready")
	require.NoError(t, <-done, "a queued call goes out once ready")
	assert.Equal(t, messages.Version20260728, s.ProtocolVersion())

	short, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-short.Done()
	err = list(short)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}

// gatedDialer holds every dial until gate closes.
type gatedDialer struct {
	inner transport.Dialer
	gate  chan struct{}
}

func (g gatedDialer) Dial(ctx context.Context) (transport.Conn, error) {
	select {
	case <-g.gate:
		return g.inner.Dial(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g gatedDialer) String() string { return "gated " + g.inner.String() }

func TestStateWatchersSeeTheLifecycleInOrder(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	gate := make(chan struct{})
	s, err := e.Open(testCtx(t, 5*time.Second), mcpengine.SessionConfig{
		Name: "watched", Dialer: gatedDialer{memoryDemo(t, demoserver.New(demoserver.Options{})), gate},
	})
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []string
	stop := s.WatchState(func(c mcpengine.StateChange) {
		mu.Lock()
		seen = append(seen, c.From.String()+">"+c.To.String())
		mu.Unlock()
	})
	defer stop()
	close(gate) // the dial completes only once the watch is in place
	require.NoError(t, s.WaitReady(testCtx(t, 5*time.Second)))
	require.NoError(t, s.Close(testCtx(t, 5*time.Second))) // waits for the callbacks
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"connecting>initializing", "initializing>ready", "ready>closed"}, seen)
}
