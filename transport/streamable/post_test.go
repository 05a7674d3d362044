package streamable

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

func TestJSONAnswersSessionIDAndHeaders(t *testing.T) {
	s := newServer(t)
	s.handle(http.MethodDelete, func(w http.ResponseWriter, _ *http.Request, _ seen) { w.WriteHeader(http.StatusOK) })
	c, col := dial(t, s, &Dialer{Header: http.Header{"authorization": {"Bearer tok-secret"}, "X-Team": {"blue"}}})
	initialize(t, s, c, col, "sess-1", messages.Version20250618, echoResult)

	init := s.entries()[0]
	assert.Equal(t, "application/json", init.Header.Get("Content-Type"))
	assert.Equal(t, "application/json, text/event-stream", init.Header.Get("Accept"))
	assert.Equal(t, "Bearer tok-secret", init.Header.Get("Authorization"), "per-server headers on every request")
	assert.Equal(t, "blue", init.Header.Get("X-Team"))
	assert.Empty(t, init.Header.Get("Mcp-Session-Id"), "no session before the server assigns one")
	assert.Empty(t, init.Header.Get("Mcp-Protocol-Version"), "no version before it is negotiated")

	// notifications/initialized goes out before Negotiated (the session
	// writes it first): the version read from the initialize answer is
	// already on it.
	require.NoError(t, c.WriteFrames(notification(messages.NotificationInitialized), request(1, "tools/list")))
	n := s.next(t, http.MethodPost)
	assert.Equal(t, messages.NotificationInitialized, n.Msg.Method)
	assert.Equal(t, "sess-1", n.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, messages.Version20250618, n.Header.Get("Mcp-Protocol-Version"))

	m := col.next(t)
	assert.Equal(t, messages.NumberID(1), m.ID)
	assert.JSONEq(t, `{"method":"tools/list"}`, string(m.Result))
	r := s.next(t, http.MethodPost)
	assert.Equal(t, "sess-1", r.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, "Bearer tok-secret", r.Header.Get("Authorization"))

	require.NoError(t, c.Close(context.Background()))
	del := s.next(t, http.MethodDelete)
	assert.Equal(t, "sess-1", del.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, "Bearer tok-secret", del.Header.Get("Authorization"))
	assert.Empty(t, col.frames, "202 Accepted delivers nothing")
	assert.Zero(t, col.nfail.Load())
}

func TestProtocolVersionHeaderFollowsNegotiated(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20250326, echoResult)

	require.NoError(t, c.WriteFrames(request(1, "ping")))
	assert.Equal(t, messages.Version20250326, s.next(t, http.MethodPost).Header.Get("Mcp-Protocol-Version"))
	col.next(t)
	assert.Empty(t, s.entries()[1].Header.Get("Mcp-Session-Id"), "a server without sessions gets no header")

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125})
	require.NoError(t, c.WriteFrames(request(2, "ping")))
	assert.Equal(t, messages.Version20251125, s.next(t, http.MethodPost).Header.Get("Mcp-Protocol-Version"))
	col.next(t)

	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20241105})
	require.NoError(t, c.WriteFrames(request(3, "ping")))
	_, sent := s.next(t, http.MethodPost).Header["Mcp-Protocol-Version"]
	assert.False(t, sent, "2024-11-05 predates the header")
	col.next(t)
}

func TestEventStreamAnswerDeliversEverythingButPrimingEvents(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		send := sseStream(w)
		send("p-0", "", 0) // priming: an id, no data
		send("p-1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, 0)
		send("p-2", `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`, 0)
		send("p-3", string(result(rec.Msg.ID, `{"done":true}`)), 0)
	})

	require.NoError(t, c.WriteFrames(request(1, "tools/call")))
	s.next(t, http.MethodPost)
	assert.Equal(t, "notifications/progress", col.next(t).Method)
	srvReq := col.next(t)
	assert.Equal(t, messages.KindRequest, srvReq.Kind)
	assert.Equal(t, messages.StringID("s1"), srvReq.ID)
	answer := col.next(t)
	assert.Equal(t, messages.NumberID(1), answer.ID)
	assert.JSONEq(t, `{"done":true}`, string(answer.Result))

	// The client's answer to the server's request is a POST answered 202.
	require.NoError(t, c.WriteFrames(result(messages.StringID("s1"), `{}`)))
	assert.Equal(t, messages.KindResponse, s.next(t, http.MethodPost).Msg.Kind)
	eventually(t, func() bool { return c.sched.Running() == 0 }, "every POST goroutine ends with its request")
	assert.Empty(t, col.frames)
}

func TestBatchAnswerIsDeliveredAsOneFrame(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	batch := `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},{"jsonrpc":"2.0","id":1,"result":{}}]`
	initialize(t, s, c, col, "", messages.Version20250326, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		writeJSON(w, []byte(batch))
	})
	require.NoError(t, c.WriteFrames(request(1, "tools/list")))
	select {
	case f := <-col.frames:
		assert.Equal(t, batch, string(f))
	case <-time.After(waitFor):
		t.Fatal("no frame")
	}
}

func TestNotificationIsAcceptedBeforeLaterFramesAreSent(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	release := make(chan struct{})
	accepted := make(chan struct{})
	var earlyRequest atomic.Bool
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	s.handle(http.MethodPost, func(w http.ResponseWriter, r *http.Request, rec seen) {
		switch rec.Msg.Kind {
		case messages.KindNotification:
			<-release
			close(accepted)
			w.WriteHeader(http.StatusAccepted)
		default:
			select {
			case <-accepted:
			default:
				earlyRequest.Store(true)
			}
			echoResult(w, r, rec)
		}
	})

	// WriteFrames returns at once although the server holds the
	// notification: it never waits for the network.
	require.NoError(t, c.WriteFrames(notification(messages.NotificationInitialized), request(1, "tools/list")))
	require.NoError(t, c.WriteFrames(request(2, "prompts/list")))
	assert.Equal(t, messages.NotificationInitialized, s.next(t, http.MethodPost).Msg.Method)
	close(release)
	got := map[messages.ID]bool{}
	got[col.next(t).ID] = true
	got[col.next(t).ID] = true
	assert.Equal(t, map[messages.ID]bool{messages.NumberID(1): true, messages.NumberID(2): true}, got)
	assert.False(t, earlyRequest.Load(), "a request overtook the notification written before it")
}

func TestRequestsRunConcurrently(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	secondArrived := make(chan struct{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if id, _ := rec.Msg.ID.Int64(); id == 1 {
			select { // answers only once request 2 is in: both are in flight together
			case <-secondArrived:
			case <-r.Context().Done():
				return
			}
		} else {
			close(secondArrived)
		}
		echoResult(w, r, rec)
	})
	require.NoError(t, c.WriteFrames(request(1, "slow")))
	require.NoError(t, c.WriteFrames(request(2, "fast")))
	got := map[messages.ID]bool{col.next(t).ID: true, col.next(t).ID: true}
	assert.Len(t, got, 2)
}

func TestWriteFramesCopiesTheFrames(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20251125, echoResult)
	buf := request(1, "tools/list")
	want := string(buf)
	require.NoError(t, c.WriteFrames(buf))
	for i := range buf {
		buf[i] = ' '
	}
	assert.Equal(t, want, string(s.next(t, http.MethodPost).Body))
	col.next(t)
}

func TestIdleConnectionHoldsNoGoroutine(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	assert.Zero(t, c.sched.Running(), "dialing starts nothing")
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	require.NoError(t, c.WriteFrames(notification(messages.NotificationInitialized), request(1, "a"), request(2, "b")))
	col.next(t)
	col.next(t)
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: false})
	eventually(t, func() bool { return c.sched.Running() == 0 }, "an idle connection holds no goroutine")
}

func TestUnansweredRequestsGetAnError(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		switch id, _ := rec.Msg.ID.Int64(); id {
		case 1: // an answer for a request never sent
			writeJSON(w, result(messages.NumberID(99), `{}`))
		case 2: // 202 is for notifications only
			w.WriteHeader(http.StatusAccepted)
		case 3: // an answer of a type MCP does not use
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("hello"))
		case 4: // an event stream that ends without the answer (and without ids)
			sseStream(w)("", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, 0)
		}
	})
	for id := int64(1); id <= 3; id++ {
		require.NoError(t, c.WriteFrames(request(id, "x")))
		m := col.next(t)
		assert.Equal(t, messages.NumberID(id), m.ID)
		f := failureOf(t, m)
		assert.NotEmpty(t, f.Reason)
	}
	require.NoError(t, c.WriteFrames(request(4, "x")))
	assert.Equal(t, "notifications/message", col.next(t).Method)
	f := failureOf(t, col.next(t))
	assert.Contains(t, f.Reason, "ended before the response")
}

func TestErrorWithoutIDIsGivenTheRequestID(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		writeJSON(w, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad request"}}`))
	})
	require.NoError(t, c.WriteFrames(request(7, "x")))
	m := col.next(t)
	assert.Equal(t, messages.NumberID(7), m.ID)
	require.NotNil(t, m.Error)
	assert.EqualValues(t, -32600, m.Error.Code)
	assert.Equal(t, "bad request", m.Error.Message)
}

func TestReadFrameIsNotUsed(t *testing.T) {
	s := newServer(t)
	c, _ := dial(t, s, &Dialer{})
	_, err := c.ReadFrame()
	assert.ErrorIs(t, err, httpcore.ErrPushOnly)
	require.NoError(t, c.Close(context.Background()))
	_, err = c.ReadFrame()
	assert.ErrorIs(t, err, transport.ErrClosed)
}
