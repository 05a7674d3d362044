package streamable

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

func progress(n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":%d}}`, n)
}

// The sse-retry scenario for a POST's answer stream: the server primes the
// stream with an id and a retry time, sends part of what it has, and drops
// the connection; the client waits the retry time, resumes with GET and
// Last-Event-ID, and every message arrives exactly once although the
// server replays one it had already sent.
func TestAnswerStreamResumesAfterTheRetryTimeWithoutLossOrDuplicates(t *testing.T) {
	const retry = 50 * time.Millisecond
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	dropped := make(chan time.Time, 1)
	initialize(t, s, c, col, "sess-r", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		send := sseStream(w)
		send("e1", "", retry)
		send("e2", progress(1), 0)
		dropped <- time.Now() // the handler returns: the stream ends without the answer
	})
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Header.Get("Last-Event-ID") == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		send := sseStream(w)
		send("e2", progress(1), 0) // replayed: already delivered
		send("e3", progress(2), 0)
		send("e4", string(result(messages.NumberID(1), `{"ok":true}`)), 0)
		send("e4", string(result(messages.NumberID(1), `{"ok":true}`)), 0) // and again
		<-r.Context().Done()                                               // the client closes once it has the answer
	})

	require.NoError(t, c.WriteFrames(request(1, "tools/call")))
	assert.Equal(t, "notifications/progress", col.next(t).Method)
	at := <-dropped
	get := s.next(t, http.MethodGet)
	resumedAfter := time.Since(at)
	assert.Equal(t, "e2", get.Header.Get("Last-Event-ID"))
	assert.Equal(t, "sess-r", get.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, "text/event-stream", get.Header.Get("Accept"))
	assert.GreaterOrEqual(t, resumedAfter, retry, "the server's retry time is honoured")

	p2 := col.next(t)
	assert.JSONEq(t, `{"progressToken":"t","progress":2}`, string(p2.Params))
	answer := col.next(t)
	assert.Equal(t, messages.NumberID(1), answer.ID)
	assert.JSONEq(t, `{"ok":true}`, string(answer.Result))
	eventually(t, func() bool { return c.sched.Running() == 0 }, "the POST goroutine ends with the answer")
	assert.Empty(t, col.frames, "nothing delivered twice")
	assert.Zero(t, col.nfail.Load())
}

// A server that closes its answer stream after every event ("polling"):
// the client keeps resuming until the answer arrives.
func TestAnswerStreamSurvivesRepeatedPolling(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		sseStream(w)("0", "", 5*time.Millisecond)
	})
	s.handle(http.MethodGet, func(w http.ResponseWriter, _ *http.Request, rec seen) {
		var n int
		_, _ = fmt.Sscan(rec.Header.Get("Last-Event-ID"), &n)
		send := sseStream(w)
		if n < 3 {
			send(fmt.Sprint(n+1), progress(n+1), 0)
			return
		}
		send("4", string(result(messages.NumberID(1), `{}`)), 0)
	})
	require.NoError(t, c.WriteFrames(request(1, "tools/call")))
	for i := 1; i <= 3; i++ {
		assert.JSONEq(t, fmt.Sprintf(`{"progressToken":"t","progress":%d}`, i), string(col.next(t).Params))
	}
	assert.Equal(t, messages.NumberID(1), col.next(t).ID)
}

func TestAnswerStreamResumptionRefusedFailsTheRequest(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		sseStream(w)("x1", "", time.Millisecond)
	})
	s.handle(http.MethodGet, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	})
	require.NoError(t, c.WriteFrames(request(1, "tools/call")))
	m := col.next(t)
	assert.Equal(t, messages.NumberID(1), m.ID)
	f := failureOf(t, m)
	assert.Equal(t, http.StatusMethodNotAllowed, f.Status)
	assert.Contains(t, f.Reason, "resuming the answer stream")
}

func TestRetryDelay(t *testing.T) {
	c := &conn{reconnect: 100 * time.Millisecond}
	rd := newReaderWithRetry(t, "")
	assert.Equal(t, 100*time.Millisecond, c.retryDelay(rd, 0))
	assert.Equal(t, 400*time.Millisecond, c.retryDelay(rd, 2))
	assert.Equal(t, MaxReconnectDelay, c.retryDelay(rd, 50))

	rd = newReaderWithRetry(t, "retry: 2000\n\n")
	assert.Equal(t, 2*time.Second, c.retryDelay(rd, 0), "the server's retry time, exactly")
	assert.Equal(t, 4*time.Second, c.retryDelay(rd, 1))

	rd = newReaderWithRetry(t, "retry: 60000\n\n")
	assert.Equal(t, time.Minute, c.retryDelay(rd, 3), "the server's retry time wins over the cap")
}

func TestEventIDsRememberABoundedWindow(t *testing.T) {
	var s eventIDs
	assert.True(t, s.add("a"))
	assert.False(t, s.add("a"))
	for i := range rememberedIDs {
		assert.True(t, s.add(fmt.Sprint(i)))
	}
	assert.True(t, s.add("a"), "the oldest id was forgotten")
	assert.Len(t, s.set, rememberedIDs)
}

func TestNoAnswerIsLostWhenTheStreamIsNotResumable(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		sseStream(w)("", progress(1), 0) // no ids: nothing to resume from
	})
	require.NoError(t, c.WriteFrames(request(1, "tools/call")))
	assert.Equal(t, "notifications/progress", col.next(t).Method)
	f := failureOf(t, col.next(t))
	assert.Equal(t, http.StatusOK, f.Status)
	assert.Zero(t, s.count(http.MethodGet), "no resumption without an event id")
}

// The official conformance scenario sse-retry (SEP-1699), with a shorter
// retry: tools/call is answered with an event stream holding only a
// priming event (id and retry), which the server closes gracefully; the
// client must wait the retry time, reconnect with GET and Last-Event-ID,
// and take the answer from that stream (after its own priming event).
func TestConformanceSSERetryScenario(t *testing.T) {
	const retry = 50 * time.Millisecond
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	closedAt := make(chan time.Time, 1)
	initialize(t, s, c, col, "session-1", messages.Version20250326, func(w http.ResponseWriter, _ *http.Request, rec seen) {
		if rec.Msg.Method != "tools/call" {
			echoResult(w, nil, rec)
			return
		}
		sseStream(w)("event-1", "", retry)
		closedAt <- time.Now()
	})
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, rec seen) {
		w.Header().Set("Mcp-Session-Id", "session-1")
		send := sseStream(w)
		send("event-2", "", retry)
		send("event-3", string(result(messages.NumberID(2), `{"content":[{"type":"text","text":"Reconnection test completed successfully"}]}`)), 0)
		<-r.Context().Done()
	})
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20250326, Listen: false})
	require.NoError(t, c.WriteFrames(notification(messages.NotificationInitialized), request(1, "tools/list")))
	col.next(t)
	require.NoError(t, c.WriteFrames(request(2, "tools/call")))
	at := <-closedAt
	get := s.next(t, http.MethodGet)
	assert.GreaterOrEqual(t, time.Since(at), retry)
	assert.Equal(t, "event-1", get.Header.Get("Last-Event-ID"))
	m := col.next(t)
	assert.Equal(t, messages.NumberID(2), m.ID)
	assert.Contains(t, string(m.Result), "Reconnection test completed successfully")
	assert.Equal(t, 1, s.count(http.MethodGet), "one reconnection, no standalone stream")
}
