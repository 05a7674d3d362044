package mcpengine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
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

// waitListen waits until the session's listen status satisfies cond.
func waitListen(t *testing.T, s *mcpengine.Session, within time.Duration, what string, cond func(mcpengine.ListenStatus) bool) mcpengine.ListenStatus {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		st, changed := s.Listen()
		if cond(st) {
			return st
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("listen: waiting for %s; status %+v (phase %v)", what, st, st.Phase)
		}
	}
}

// notes collects the notifications an OnNotification handler receives.
type notes struct {
	ch chan mcpengine.Notification
}

func watchNotes(s *mcpengine.Session) (*notes, func()) {
	n := &notes{ch: make(chan mcpengine.Notification, 64)}
	stop := s.OnNotification(func(m mcpengine.Notification) {
		if m.Method != messages.NotificationSubscriptionsAcknowledged {
			n.ch <- m
		}
	})
	return n, stop
}

func (n *notes) next(t *testing.T, within time.Duration) mcpengine.Notification {
	t.Helper()
	select {
	case m := <-n.ch:
		return m
	case <-time.After(within):
		t.Fatal("no notification")
		return mcpengine.Notification{}
	}
}

func subscriptionID(t *testing.T, params messages.RawMessage) string {
	t.Helper()
	var p struct {
		Meta map[string]messages.RawMessage `json:"_meta"`
	}
	require.NoError(t, messages.Unmarshal(params, &p), "%s", params)
	id := p.Meta[messages.MetaSubscriptionID]
	require.NotEmpty(t, id, "the notification names its listen: %s", params)
	return string(id)
}

var allListChanges = messages.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}

// TestListenCarriesListChangesAndResourceUpdates: in 2026-07-28, over
// stdio (engine serve --era modern) and Streamable HTTP, a notification
// handler opens subscriptions/listen for the list changes the server
// declares, a subscription re-opens it with the URI, the acknowledged
// filter is exposed, the notify and touch tools' notifications reach
// OnNotification, and the server's graceful end is reported as such.
func TestListenCarriesListChangesAndResourceUpdates(t *testing.T) {
	for _, srvKind := range append(eraServers[:len(eraServers):len(eraServers)], h2cEraServer) {
		t.Run(srvKind.name, func(t *testing.T) {
			cfg, p := srvKind.start(t, []string{"--era", "modern"}, demoserver.Options{Versions: messages.ModernVersions})
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "listen", Server: cfg})
			require.NoError(t, err)
			require.Equal(t, messages.Version20260728, s.ProtocolVersion())
			st, _ := s.Listen()
			assert.Equal(t, mcpengine.ListenNone, st.Phase, "nothing asked for, no listen")

			n, stop := watchNotes(s)
			defer stop()
			st = waitListen(t, s, 10*time.Second, "open", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenOpen })
			assert.Equal(t, allListChanges, st.Requested)
			require.NotNil(t, st.Acknowledged)
			assert.Equal(t, allListChanges, *st.Acknowledged)
			assert.Equal(t, 1, st.Opened)

			res, err := s.CallTool(ctx, "notify", map[string]any{"kind": "tools"})
			require.NoError(t, err)
			require.False(t, res.IsError)
			m := n.next(t, 10*time.Second)
			assert.Equal(t, messages.NotificationToolsListChanged, m.Method)
			firstID := subscriptionID(t, m.Params)

			const uri = "demo://resource/2"
			require.NoError(t, s.Subscribe(ctx, uri))
			// Subscribe returned once the server acknowledged the URI.
			st, _ = s.Listen()
			require.Equal(t, mcpengine.ListenOpen, st.Phase)
			require.NotNil(t, st.Acknowledged)
			assert.Equal(t, []string{uri}, st.Acknowledged.ResourceSubscriptions)
			assert.Equal(t, 2, st.Opened, "re-opened with the new filter")
			res, err = s.CallTool(ctx, "touch", map[string]any{"uri": uri})
			require.NoError(t, err)
			require.Equal(t, "notified", textOf(t, res))
			m = n.next(t, 10*time.Second)
			assert.Equal(t, messages.NotificationResourcesUpdated, m.Method)
			assert.Contains(t, string(m.Params), uri)
			assert.NotEqual(t, firstID, subscriptionID(t, m.Params), "on the new listen")

			// The replaced listen was closed: one listen is open. (Over
			// HTTP closing is the client closing the POST's stream, which
			// the server learns when it learns it: wait for that, the new
			// listen's POST is then its only session.)
			if p != nil {
				require.NoError(t, p.srv.Await(ctx, func(st demoserver.Stats) bool { return st.ActiveSessions == 1 }))
			}
			res, err = s.CallTool(ctx, "notify", map[string]any{"kind": "listen_end"})
			require.NoError(t, err)
			assert.Equal(t, "ended 1 listens", textOf(t, res))
			st = waitListen(t, s, 10*time.Second, "ended", func(st mcpengine.ListenStatus) bool { return st.Phase != mcpengine.ListenOpen })
			assert.Equal(t, mcpengine.ListenEnded, st.Phase, "a graceful end: %v", st.Err)
			assert.NoError(t, st.Err)
			// Not re-opened: the server ended it.
			res, err = s.CallTool(ctx, "notify", map[string]any{"kind": "prompts"})
			require.NoError(t, err)
			assert.Equal(t, "sent "+messages.NotificationPromptsListChanged+" on 0 listens", textOf(t, res))
		})
	}
}

func textOf(t *testing.T, res *messages.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	return res.Content[0].Text
}

// TestListenIsReopenedAfterTheServerIsRestarted: a stdio server killed
// under an open listen is a dropped stream (not a graceful end); after the
// restart the listen is opened again with the same filter, acknowledged
// the same, and carries notifications.
func TestListenIsReopenedAfterTheServerIsRestarted(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "relisten", Server: engineServe("--era", "modern")})
	require.NoError(t, err)
	n, stop := watchNotes(s)
	defer stop()
	const uri = "demo://resource/1"
	require.NoError(t, s.Subscribe(ctx, uri))
	before := waitListen(t, s, 10*time.Second, "open with the subscription", func(st mcpengine.ListenStatus) bool {
		return st.Phase == mcpengine.ListenOpen && st.Acknowledged != nil && len(st.Acknowledged.ResourceSubscriptions) == 1
	})

	require.NoError(t, syscall.Kill(servePID(t), syscall.SIGKILL))
	dropped := waitListen(t, s, 10*time.Second, "dropped", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenDropped })
	require.ErrorIs(t, dropped.Err, mcpengine.ErrConnectionLost)

	after := waitListen(t, s, 20*time.Second, "re-opened", func(st mcpengine.ListenStatus) bool {
		return st.Phase == mcpengine.ListenOpen && st.Opened > before.Opened
	})
	assert.Equal(t, before.Requested, after.Requested)
	assert.Equal(t, *before.Acknowledged, *after.Acknowledged)
	res, err := s.CallTool(ctx, "touch", map[string]any{"uri": uri})
	require.NoError(t, err)
	require.Equal(t, "notified", textOf(t, res))
	m := n.next(t, 10*time.Second)
	assert.Equal(t, messages.NotificationResourcesUpdated, m.Method)
}

// TestNoListenWhenNothingIsAsked: a 2026-07-28 session whose embedder
// installed no notification handler and subscribed to nothing sends no
// subscriptions/listen (counted by the server); one that stops its only
// handler closes its listen.
func TestNoListenWhenNothingIsAsked(t *testing.T) {
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "quiet", Dialer: memoryDemo(t, srv)})
	require.NoError(t, err)
	_, err = s.ListTools(ctx)
	require.NoError(t, err)
	// The pipe keeps order: a listen sent when the session became ready
	// would have reached the server before tools/list.
	assert.Zero(t, srv.Stats().Methods[messages.MethodSubscriptionsListen])
	st, _ := s.Listen()
	assert.Equal(t, mcpengine.ListenNone, st.Phase)
	assert.Zero(t, st.Opened)

	_, stop := watchNotes(s)
	waitListen(t, s, 10*time.Second, "open", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenOpen })
	stop()
	waitListen(t, s, 10*time.Second, "closed", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenNone })
	require.NoError(t, srv.Await(ctx, func(st demoserver.Stats) bool { return st.Methods[messages.MethodSubscriptionsListen] == 1 }))
	res, err := s.CallTool(ctx, "notify", map[string]any{"kind": "tools"})
	require.NoError(t, err)
	assert.Equal(t, "sent "+messages.NotificationToolsListChanged+" on 0 listens", textOf(t, res), "the server forgot the cancelled listen")
}

// TestEveryListenFrameValidatesAgainstThe2026Schema: what the engine sends
// to open, replace and cancel listens, and what the demo server answers
// (acknowledgements, notifications, the graceful result), validate
// against the 2026-07-28 schema.
func TestEveryListenFrameValidatesAgainstThe2026Schema(t *testing.T) {
	rec := &recorder{}
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "schema-listen", Dialer: recordingDialer{memoryDemo(t, srv), rec}})
	require.NoError(t, err)
	n, stop := watchNotes(s)
	defer stop()
	waitListen(t, s, 10*time.Second, "open", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenOpen })
	require.NoError(t, s.Subscribe(ctx, "demo://resource/3"))
	waitListen(t, s, 10*time.Second, "re-opened", func(st mcpengine.ListenStatus) bool {
		return st.Phase == mcpengine.ListenOpen && st.Acknowledged != nil && len(st.Acknowledged.ResourceSubscriptions) == 1
	})
	for _, kind := range []string{"tools", "prompts", "resources"} {
		_, err = s.CallTool(ctx, "notify", map[string]any{"kind": kind})
		require.NoError(t, err)
		n.next(t, 10*time.Second)
	}
	_, err = s.CallTool(ctx, "touch", map[string]any{"uri": "demo://resource/3"})
	require.NoError(t, err)
	n.next(t, 10*time.Second)
	_, err = s.CallTool(ctx, "notify", map[string]any{"kind": "listen_end"})
	require.NoError(t, err)
	waitListen(t, s, 10*time.Second, "ended", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenEnded })

	rec.mu.Lock()
	defer rec.mu.Unlock()
	seen := map[string]int{}
	for _, frame := range rec.sent {
		require.NoError(t, schemacheck.Validate(messages.Version20260728, frame), "sent %s", frame)
		msgs, _ := messages.DecodeFrame(frame)
		for _, m := range msgs {
			seen["sent "+m.Method]++
		}
	}
	listenResults := 0
	for _, frame := range rec.received {
		require.NoError(t, schemacheck.Validate(messages.Version20260728, frame), "received %s", frame)
		msgs, _ := messages.DecodeFrame(frame)
		for _, m := range msgs {
			seen["received "+m.Method]++
			if m.Kind == messages.KindResponse && len(m.Result) > 0 {
				if schemacheck.ValidateResult(messages.Version20260728, messages.MethodSubscriptionsListen, m.Result) == nil &&
					subscriptionIDOf(m.Result) == m.ID.String() {
					listenResults++
				}
			}
		}
	}
	assert.Equal(t, 2, seen["sent "+messages.MethodSubscriptionsListen])
	assert.Equal(t, 1, seen["sent "+messages.NotificationCancelled], "the replaced listen")
	assert.Equal(t, 2, seen["received "+messages.NotificationSubscriptionsAcknowledged])
	assert.Equal(t, 1, seen["received "+messages.NotificationResourcesUpdated])
	assert.Equal(t, 1, listenResults, "the graceful end's result names its listen")
}

func subscriptionIDOf(result messages.RawMessage) string {
	var r messages.ListenResult
	if messages.Unmarshal(result, &r) != nil || r.Meta == nil || r.Meta.SubscriptionID == nil {
		return ""
	}
	return r.Meta.SubscriptionID.String()
}

// TestADroppedListenIsReopenedWithBackoff: over Streamable HTTP a listen
// stream the server drops (after its acknowledgement, without a result,
// and not resumable) fails alone: the session stays ready, the drop is
// reported as a drop (not a graceful end, not a lost connection), and the
// listen is opened again after the backoff.
func TestADroppedListenIsReopenedWithBackoff(t *testing.T) {
	for _, h2c := range []bool{false, true} {
		t.Run(map[bool]string{false: "h1", true: "h2c"}[h2c], func(t *testing.T) {
			srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
			h := srv.StreamableHandler(demoserver.HTTPOptions{DropStreamEvery: 1, DropAfterEvents: 1, NoPriming: true, DropAbort: true})
			ts := httptest.NewUnstartedServer(h)
			if h2c {
				var protos http.Protocols
				protos.SetUnencryptedHTTP2(true)
				ts.Config.Protocols = &protos
			}
			ts.Start()
			closeDemoAtCleanup(t, h, ts)
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "drops", Server: mcpengine.ServerConfig{URL: ts.URL + demoserver.PathStreamable, Type: "streamable-http", HTTP2PriorKnowledge: h2c}})
			require.NoError(t, err)
			_, stop := watchNotes(s)
			defer stop()
			st := waitListen(t, s, 20*time.Second, "two drops", func(st mcpengine.ListenStatus) bool { return st.Drops >= 2 })
			assert.GreaterOrEqual(t, st.Opened, 2, "re-opened after the first drop")
			assert.Equal(t, mcpengine.StateReady, s.State(), "a dropped listen fails alone")
			if st.Phase == mcpengine.ListenDropped {
				assert.NotErrorIs(t, st.Err, mcpengine.ErrConnectionLost)
			}
			assert.NotEqual(t, mcpengine.ListenEnded, st.Phase)
		})
	}
}

// TestTheSweepLeavesTheListenAlone: a request timeout shorter than the
// listen's life does not end it; the sweep that expires a call leaves the
// listen pending, and its notifications keep coming.
func TestTheSweepLeavesTheListenAlone(t *testing.T) {
	e := newEngine(t, mcpengine.Config{RequestTimeout: 200 * time.Millisecond})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "sweep", Server: engineServe("--era", "modern")})
	require.NoError(t, err)
	n, stop := watchNotes(s)
	defer stop()
	waitListen(t, s, 10*time.Second, "open", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenOpen })
	// Expired by the sweep, after the listen was sent.
	_, err = s.CallTool(ctx, "sleep", map[string]any{"ms": 5000})
	require.ErrorIs(t, err, mcpengine.ErrTimeout)
	st, _ := s.Listen()
	assert.Equal(t, mcpengine.ListenOpen, st.Phase)
	assert.Equal(t, 1, st.Opened)
	_, err = s.CallTool(ctx, "notify", map[string]any{"kind": "resources"})
	require.NoError(t, err)
	assert.Equal(t, messages.NotificationResourcesListChanged, n.next(t, 10*time.Second).Method)
	st, _ = s.Listen()
	assert.Equal(t, 1, st.Opened, "never re-opened")
}

// TestCallersStillReadTheirOwnAnswersWhileListening: the listen, pending
// for the connection's life, does not keep the stdio reader goroutine
// holding the turn: a caller alone on a listening session still reads its
// own answers (actors/turns.go), and the listen's notifications still
// arrive.
func TestCallersStillReadTheirOwnAnswersWhileListening(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 60*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "turns", Server: engineServe("--era", "modern")})
	require.NoError(t, err)
	n, stop := watchNotes(s)
	defer stop()
	waitListen(t, s, 10*time.Second, "open", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenOpen })

	before := s.Stats()
	byCallers, frames := before.FramesReadByCallers, before.FramesIn
	for range 200 {
		res, err := s.CallTool(ctx, "echo", map[string]any{"text": "x"})
		require.NoError(t, err)
		require.Equal(t, "x", res.Content[0].Text)
	}
	after := s.Stats()
	byCallers, frames = after.FramesReadByCallers-byCallers, after.FramesIn-frames
	t.Logf("%d of %d answers read by their callers", byCallers, frames)
	// As in TestALoneCallerReadsItsOwnAnswersAndSurvivesKill9: only a
	// pause of over 2 ms between two calls hands the turn back.
	assert.GreaterOrEqual(t, byCallers*2, frames, "most answers are read by their callers")

	_, err = s.CallTool(ctx, "notify", map[string]any{"kind": "tools"})
	require.NoError(t, err)
	assert.Equal(t, messages.NotificationToolsListChanged, n.next(t, 10*time.Second).Method)
}

// TestARefusedListenIsFailedNotRetried: a 2026-07-28 server that answers
// subscriptions/listen with a JSON-RPC error refused it: ListenFailed with
// that error, not a drop, and not sent again on the same connection.
func TestARefusedListenIsFailedNotRetried(t *testing.T) {
	var mu sync.Mutex
	listens := 0
	dialer := memory.NewDialer("refuses-listen", func(conn transport.Conn) {
		defer conn.Close(context.Background())
		for {
			frame, err := conn.ReadFrame()
			if err != nil {
				return
			}
			msgs, _ := messages.DecodeFrame(frame)
			for _, m := range msgs {
				if m.Kind != messages.KindRequest {
					continue
				}
				var out []byte
				switch m.Method {
				case messages.MethodServerDiscover:
					out = messages.AppendResult(nil, m.ID, messages.RawMessage(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`))
				case messages.MethodSubscriptionsListen:
					mu.Lock()
					listens++
					mu.Unlock()
					out = messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "no listen here"})
				default:
					out = messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found"})
				}
				if conn.WriteFrames(out) != nil {
					return
				}
			}
		}
	})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "refused", Dialer: dialer})
	require.NoError(t, err)
	require.Equal(t, messages.Version20260728, s.ProtocolVersion())
	_, stop := watchNotes(s)
	defer stop()
	st := waitListen(t, s, 10*time.Second, "failed", func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenFailed })
	var werr *messages.WireError
	require.ErrorAs(t, st.Err, &werr)
	assert.EqualValues(t, messages.CodeMethodNotFound, werr.Code)
	assert.Equal(t, messages.SubscriptionFilter{ToolsListChanged: true}, st.Requested, "only what the server declares")
	require.NoError(t, s.Ping(ctx)) // a round trip on the ordered pipe
	st, _ = s.Listen()
	assert.Equal(t, mcpengine.ListenFailed, st.Phase)
	assert.Equal(t, 1, st.Opened)
	mu.Lock()
	assert.Equal(t, 1, listens)
	mu.Unlock()
}

// TestTheHandshakeEraNeverListens: with a notification handler and a
// subscription, a legacy session uses resources/subscribe (and its GET
// stream over HTTP), never subscriptions/listen.
func TestTheHandshakeEraNeverListens(t *testing.T) {
	srv := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "legacy", Dialer: memoryDemo(t, srv)})
	require.NoError(t, err)
	require.Equal(t, messages.Version20251125, s.ProtocolVersion())
	n, stop := watchNotes(s)
	defer stop()
	require.NoError(t, s.Subscribe(ctx, "demo://resource/1"))
	res, err := s.CallTool(ctx, "touch", map[string]any{"uri": "demo://resource/1"})
	require.NoError(t, err)
	require.Equal(t, "notified", textOf(t, res))
	assert.Equal(t, messages.NotificationResourcesUpdated, n.next(t, 10*time.Second).Method)
	st := srv.Stats()
	assert.Equal(t, int64(1), st.Methods[messages.MethodResourcesSubscribe])
	assert.Zero(t, st.Methods[messages.MethodSubscriptionsListen])
	ls, _ := s.Listen()
	assert.Equal(t, mcpengine.ListenNone, ls.Phase)
}

// TestSubscribeFailsWhenTheServerDoesNotTakeTheURI: in 2026-07-28 a
// subscription is settled by the server's acknowledgement. A server that
// acknowledges a filter without the URI declined it
// (ErrSubscriptionDeclined); one that refuses the listen fails Subscribe
// with its error. Either way the URI leaves the filter: the session
// listens as before.
func TestSubscribeFailsWhenTheServerDoesNotTakeTheURI(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		t.Run(map[bool]string{false: "declined", true: "refused"}[refuse], func(t *testing.T) {
			dialer := modernScripted(func(m messages.Message) [][]byte {
				switch {
				case m.Method == messages.MethodSubscriptionsListen && refuse:
					return [][]byte{messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInvalidParams, Message: "no resource subscriptions here"})}
				case m.Method == messages.MethodSubscriptionsListen:
					// Acknowledges list changes only; the stream stays open.
					id := m.ID
					params, err := messages.Marshal(&messages.SubscriptionsAcknowledgedParams{
						Meta:          &messages.SubscriptionMeta{SubscriptionID: &id},
						Notifications: messages.SubscriptionFilter{ToolsListChanged: true},
					})
					if err != nil {
						return nil
					}
					return [][]byte{messages.AppendNotification(nil, messages.NotificationSubscriptionsAcknowledged, params)}
				}
				return [][]byte{messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found"})}
			})
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "no-uri", Dialer: dialer})
			require.NoError(t, err)
			require.Equal(t, messages.Version20260728, s.ProtocolVersion())

			err = s.Subscribe(ctx, "demo://r")
			if refuse {
				var werr *messages.WireError
				require.ErrorAs(t, err, &werr)
				assert.EqualValues(t, messages.CodeInvalidParams, werr.Code)
			} else {
				require.ErrorIs(t, err, mcpengine.ErrSubscriptionDeclined)
				assert.Contains(t, err.Error(), "demo://r")
			}
			// The URI left the filter: nothing is asked for any more, so
			// there is no listen.
			waitListen(t, s, 10*time.Second, "the URI out of the filter", func(st mcpengine.ListenStatus) bool {
				return len(st.Requested.ResourceSubscriptions) == 0
			})
		})
	}
}
