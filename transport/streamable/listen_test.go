package streamable

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

func listening(c *conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.get != nil
}

func TestGetStreamOpensOnlyWhenTheSessionListens(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	streamClosed := make(chan struct{})
	initialize(t, s, c, col, "sess-g", messages.Version20250618, echoResult)
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, _ seen) {
		sseStream(w)("g1", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, 0)
		<-r.Context().Done()
		close(streamClosed)
	})

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20250618, Listen: false})
	assert.False(t, listening(c))
	require.NoError(t, c.WriteFrames(request(1, "ping")))
	col.next(t)
	assert.Zero(t, s.count(http.MethodGet), "nothing to listen for: no GET stream")

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20250618, Listen: true})
	get := s.next(t, http.MethodGet)
	assert.Equal(t, "text/event-stream", get.Header.Get("Accept"))
	assert.Equal(t, "sess-g", get.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, messages.Version20250618, get.Header.Get("Mcp-Protocol-Version"))
	assert.Equal(t, "notifications/tools/list_changed", col.next(t).Method)

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20250618, Listen: true})
	assert.Equal(t, 1, s.count(http.MethodGet), "a repeated Negotiated opens no second stream")

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20250618, Listen: false})
	<-streamClosed
	eventually(t, func() bool { return c.sched.Running() == 0 }, "the GET goroutine ends when the session stops listening")
}

func TestGetStream405IsToleratedSilently(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	s.handle(http.MethodGet, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	})
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	s.next(t, http.MethodGet)
	eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.getOff && c.get == nil
	}, "the loop ends and remembers the server has no stream")
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	require.NoError(t, c.WriteFrames(request(1, "ping")))
	assert.Equal(t, messages.NumberID(1), col.next(t).ID)
	assert.Equal(t, 1, s.count(http.MethodGet), "not asked again")
	assert.Zero(t, col.nfail.Load())
}

func TestGetStreamFailuresNeverTouchThePosts(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{ReconnectDelay: 5 * time.Millisecond})
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	third := make(chan struct{})
	var gets atomic.Int32
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, _ seen) {
		switch gets.Add(1) {
		case 1:
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		case 2: // the connection breaks mid-stream
			sseStream(w)("", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}`, 0)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		default:
			close(third)
			<-r.Context().Done()
		}
	})
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	require.NoError(t, c.WriteFrames(request(1, "ping")))
	got := map[string]bool{}
	for range 2 {
		m := col.next(t)
		got[m.Method+m.ID.String()] = true
	}
	assert.Equal(t, map[string]bool{"notifications/message<none>": true, "1": true}, got)
	<-third
	require.NoError(t, c.WriteFrames(request(2, "ping")))
	assert.Equal(t, messages.NumberID(2), col.next(t).ID)
	assert.Zero(t, col.nfail.Load(), "the GET stream never fails the connection")
}

// The official sse-retry conformance scenario, on the standalone stream:
// a priming event with an id and a retry time, then the server closes; the
// client must wait at least the retry time and reconnect with
// Last-Event-ID.
func TestGetStreamHonoursRetryAndResumes(t *testing.T) {
	for _, h2c := range []bool{false, true} {
		t.Run(map[bool]string{false: "h1", true: "h2c"}[h2c], func(t *testing.T) {
			const retry = 50 * time.Millisecond
			s := newServerOver(t, h2c)
			c, col := dial(t, s, &Dialer{})
			initialize(t, s, c, col, "sess", messages.Version20250618, echoResult)
			closedAt := make(chan time.Time, 1)
			s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, rec seen) {
				if rec.Header.Get("Last-Event-ID") == "" {
					sseStream(w)("event-1", "", retry)
					closedAt <- time.Now()
					return
				}
				sseStream(w)("event-2", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}`, 0)
				<-r.Context().Done()
			})
			c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20250618, Listen: true})
			first := s.next(t, http.MethodGet)
			assert.Empty(t, first.Header.Get("Last-Event-ID"))
			at := <-closedAt
			second := s.next(t, http.MethodGet)
			assert.GreaterOrEqual(t, time.Since(at), retry)
			assert.Equal(t, "event-1", second.Header.Get("Last-Event-ID"))
			assert.Equal(t, "notifications/resources/updated", col.next(t).Method)
		})
	}
}

func TestDuplicateAnswerOnTheGetStreamIsDropped(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	require.NoError(t, c.WriteFrames(request(1, "ping")))
	assert.Equal(t, messages.NumberID(1), col.next(t).ID)

	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, _ seen) {
		send := sseStream(w)
		send("a", string(result(messages.NumberID(1), `{}`)), 0)  // answered already
		send("b", string(result(messages.NumberID(42), `{}`)), 0) // never asked
		send("c", `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`, 0)
		<-r.Context().Done()
	})
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	// One goroutine delivers the stream in order: had either answer gone
	// through, it would come first.
	assert.Equal(t, "notifications/prompts/list_changed", col.next(t).Method)
}

func TestGet404WithAKnownSessionAsksWhetherTheSessionExpired(t *testing.T) {
	t.Run("the server knows the session: it just has no GET route", func(t *testing.T) {
		s := newServer(t)
		c, col := dial(t, s, &Dialer{})
		initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
		s.handle(http.MethodGet, func(w http.ResponseWriter, _ *http.Request, _ seen) { http.NotFound(w, nil) })
		c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
		s.next(t, http.MethodGet)
		probe := s.next(t, http.MethodPost)
		assert.Equal(t, "ping", probe.Msg.Method)
		assert.Equal(t, "sess", probe.Header.Get("Mcp-Session-Id"))
		eventually(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.getOff }, "no GET stream")
		assert.Empty(t, col.frames, "the probe's answer is not delivered")
		assert.Zero(t, col.nfail.Load())
	})
	t.Run("the session is gone", func(t *testing.T) {
		s := newServer(t)
		c, col := dial(t, s, &Dialer{})
		initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
		s.handle(http.MethodGet, func(w http.ResponseWriter, _ *http.Request, _ seen) { http.NotFound(w, nil) })
		s.handle(http.MethodPost, func(w http.ResponseWriter, _ *http.Request, _ seen) { http.NotFound(w, nil) })
		c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
		assert.ErrorIs(t, col.failure(t), transport.ErrSessionExpired)
	})
}

// TestSubscribeWaitsForTheGetStream: resources/subscribe is held until the
// GET stream the session asked for has its answer, so that the first
// update the server sends after answering it has a stream to go on.
func TestSubscribeWaitsForTheGetStream(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess-sub", messages.Version20251125, echoResult)
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(open) // a failed test leaves no handler blocked
	var released atomic.Bool
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, _ seen) {
		<-release
		released.Store(true)
		sseStream(w)
		<-r.Context().Done()
	})
	waiting := make(chan struct{}, 4)
	testHookAwaitListening = func() { waiting <- struct{}{} }
	t.Cleanup(func() { testHookAwaitListening = nil })

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	s.next(t, http.MethodGet)
	require.NoError(t, c.WriteFrames([]byte(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"demo://r"}}`)))
	select {
	case <-waiting:
	case <-time.After(waitFor):
		t.Fatal("resources/subscribe did not wait for the GET stream")
	}
	open()
	sub := s.next(t, http.MethodPost)
	assert.Equal(t, "resources/subscribe", sub.Msg.Method)
	assert.True(t, released.Load(), "the subscription reached the server after the GET stream was answered")
	assert.Equal(t, messages.NumberID(2), col.next(t).ID)
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: false})
}
