package streamable

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

func TestNotFoundForAKnownSessionExpiresTheConnectionOnce(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess-x", messages.Version20251125, echoResult)
	s.handle(http.MethodPost, func(w http.ResponseWriter, _ *http.Request, _ seen) { http.NotFound(w, nil) })

	require.NoError(t, c.WriteFrames(request(1, "a"), request(2, "b"), notification("notifications/roots/list_changed")))
	assert.ErrorIs(t, col.failure(t), transport.ErrSessionExpired)
	eventually(t, func() bool { return c.sched.Running() == 0 }, "all POSTs end")
	assert.EqualValues(t, 1, col.nfail.Load(), "fail is called once")
	assert.Empty(t, col.frames, "no answers are synthesized: the session fails them all")
	assert.ErrorIs(t, c.WriteFrames(request(3, "c")), transport.ErrSessionExpired)
}

func TestNotFoundWithoutASessionFailsOnlyTheRequest(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	s.handle(http.MethodPost, func(w http.ResponseWriter, _ *http.Request, _ seen) { http.NotFound(w, nil) })
	require.NoError(t, c.WriteFrames(request(0, messages.MethodInitialize)))
	f := failureOf(t, col.next(t))
	assert.Equal(t, http.StatusNotFound, f.Status)
	assert.Zero(t, col.nfail.Load())
}

func TestServerErrorBecomesAnErrorAnswerAndTheConnectionStays(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Method == "flaky" {
			http.Error(w, "overloaded, try later", http.StatusServiceUnavailable)
			return
		}
		echoResult(w, r, rec)
	})
	require.NoError(t, c.WriteFrames(request(1, "flaky")))
	m := col.next(t)
	assert.Equal(t, messages.NumberID(1), m.ID)
	assert.Contains(t, m.Error.Message, "503")
	f := failureOf(t, m)
	assert.Equal(t, http.StatusServiceUnavailable, f.Status)
	assert.Contains(t, f.Reason, "503 Service Unavailable")
	assert.Contains(t, f.Reason, "overloaded, try later")

	require.NoError(t, c.WriteFrames(request(2, "fine")))
	assert.Nil(t, col.next(t).Error)
	assert.Zero(t, col.nfail.Load())
}

func TestClientErrorReasonIsCappedAndHoldsNoSecret(t *testing.T) {
	const token = "tok-very-secret-0123"
	s := newServer(t)
	c, col := dial(t, s, &Dialer{Header: httpx.Bearer(token)})
	initialize(t, s, c, col, "sess-secret-9876", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, _ seen) {
		// An error page that echoes the request's credentials, and goes on.
		http.Error(w, "bad credentials: "+r.Header.Get("Authorization")+" session "+r.Header.Get("Mcp-Session-Id")+" "+strings.Repeat("x", 5000), http.StatusForbidden)
	})
	require.NoError(t, c.WriteFrames(request(1, "x")))
	m := col.next(t)
	f := failureOf(t, m)
	assert.Equal(t, http.StatusForbidden, f.Status)
	assert.Contains(t, f.Reason, "403 Forbidden")
	assert.Contains(t, f.Reason, "bad credentials")
	assert.Less(t, len(f.Reason), 300, "the body excerpt is capped")
	for _, secret := range []string{token, "sess-secret-9876"} {
		assert.NotContains(t, f.Reason, secret)
		assert.NotContains(t, m.Error.Message, secret)
	}
}

func TestNetworkFailureBecomesAnErrorAnswer(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{URL: s.URL + "/mcp?token=url-secret-4242"})
	initialize(t, s, c, col, "", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // no answer at all
		}
	})
	require.NoError(t, c.WriteFrames(request(1, "x")))
	m := col.next(t)
	f := failureOf(t, m)
	assert.Zero(t, f.Status)
	assert.NotEmpty(t, f.Reason)
	assert.NotContains(t, f.Reason, "url-secret-4242")
	assert.NotContains(t, f.Reason, "/mcp", "the URL is not repeated")
	assert.Zero(t, col.nfail.Load())
}

func TestRefusedConnectionBecomesAnErrorAnswer(t *testing.T) {
	s := newServer(t)
	url := s.URL
	s.Close() // nothing listens there any more
	c, col := dial(t, s, &Dialer{URL: url + "/mcp"})
	require.NoError(t, c.WriteFrames(request(0, messages.MethodInitialize)))
	f := failureOf(t, col.next(t))
	assert.Zero(t, f.Status)
	assert.Contains(t, f.Reason, "refused")
}

func TestAnswersOverTheFrameCapFailOnlyTheirRequest(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{MaxFrameBytes: 200})
	big := `{"blob":"` + strings.Repeat("b", 300) + `"}`
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		switch rec.Msg.Method {
		case "big-json":
			writeJSON(w, result(rec.Msg.ID, big))
		case "big-json-chunked": // no Content-Length: the cap is found while reading
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(result(rec.Msg.ID, big)[:100])
			w.(http.Flusher).Flush()
			_, _ = w.Write(result(rec.Msg.ID, big)[100:])
		case "big-event":
			sseStream(w)("1", string(result(rec.Msg.ID, big)), 0)
		default:
			echoResult(w, r, rec)
		}
	})
	for i, method := range []string{"big-json", "big-json-chunked", "big-event"} {
		require.NoError(t, c.WriteFrames(request(int64(i+1), method)))
		f := failureOf(t, col.next(t))
		assert.Contains(t, f.Reason, "200-byte limit", method)
	}
	require.NoError(t, c.WriteFrames(request(9, "small")))
	assert.Nil(t, col.next(t).Error)
	assert.Zero(t, col.nfail.Load(), "the cap fails requests, not the connection")
}

func TestCancelledRequestIsAbortedAndNotAnswered(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	aborted := make(chan struct{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Method == "slow" {
			send := sseStream(w)
			send("s1", progress(1), 0)
			<-r.Context().Done()
			close(aborted)
			return
		}
		echoResult(w, r, rec)
	})
	require.NoError(t, c.WriteFrames(request(5, "slow")))
	assert.Equal(t, "notifications/progress", col.next(t).Method)
	require.NoError(t, c.WriteFrames(cancelled(5)))
	<-aborted
	eventually(t, func() bool { return c.sched.Running() == 0 }, "the POST of the cancelled request ends")
	assert.Empty(t, col.frames, "no answer is made up for a request the session gave up")
	cancel := s.last()
	assert.Equal(t, messages.NotificationCancelled, cancel.Msg.Method, "the server was told before the stream was closed")
}

func TestCloseCancelsEverythingDeletesTheSessionAndIsIdempotent(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	stuck := make(chan struct{})
	initialize(t, s, c, col, "sess-close", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, _ seen) {
		close(stuck)
		<-r.Context().Done()
	})
	deleted := make(chan struct{})
	s.handle(http.MethodDelete, func(w http.ResponseWriter, _ *http.Request, _ seen) {
		close(deleted)
		w.WriteHeader(http.StatusMethodNotAllowed) // allowed: the server keeps sessions
	})
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, _ seen) {
		sseStream(w)("", "", 0)
		<-r.Context().Done()
	})
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	s.next(t, http.MethodGet)
	require.NoError(t, c.WriteFrames(request(1, "hang")))
	<-stuck

	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	require.NoError(t, c.Close(ctx))
	<-deleted
	assert.Zero(t, c.sched.Running(), "Close waited for every goroutine")
	require.NoError(t, c.Close(ctx))
	assert.ErrorIs(t, c.WriteFrames(request(2, "x")), transport.ErrClosed)
	assert.Empty(t, col.frames, "nothing is delivered after Close")
	assert.Zero(t, col.nfail.Load())
	assert.Equal(t, "sess-close", s.last().Header.Get("Mcp-Session-Id"))
}

func TestCloseIsBoundedWhenTheServerDoesNotAnswerTheDelete(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	s.handle(http.MethodDelete, func(w http.ResponseWriter, r *http.Request, _ seen) { <-r.Context().Done() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.NoError(t, c.Close(ctx))
	assert.Error(t, ctx.Err(), "Close returned once its context ended")
}

func TestTimeoutOfOneRequestBecomesAnErrorAnswer(t *testing.T) {
	s := newServer(t)
	client := httpx.NewClient(httpx.ClientOptions{ResponseHeaderTimeout: 30 * time.Millisecond, Proxy: httpx.NoProxy})
	t.Cleanup(client.CloseIdleConnections)
	c, col := dial(t, s, &Dialer{Client: client})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Method == "stuck" {
			<-r.Context().Done()
			return
		}
		echoResult(w, r, rec)
	})
	require.NoError(t, c.WriteFrames(request(1, "stuck")))
	f := failureOf(t, col.next(t))
	assert.Equal(t, "timeout", f.Reason)
	require.NoError(t, c.WriteFrames(request(2, "fine")))
	assert.Nil(t, col.next(t).Error, "the connection stays up")
}

// syncBuffer is an io.Writer safe for the logger's concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLogsNeverHoldSecrets(t *testing.T) {
	const (
		token = "tok-log-secret-1111"
		query = "qs-log-secret-2222"
		sid   = "sid-log-secret-3333"
	)
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := newServer(t)
	c, col := dial(t, s, &Dialer{URL: s.URL + "/mcp?key=" + query, Header: httpx.Bearer(token), Logger: logger, ReconnectDelay: time.Millisecond})
	echo := func(w http.ResponseWriter, r *http.Request) string {
		return r.Header.Get("Authorization") + " " + r.Header.Get("Mcp-Session-Id") + " " + r.URL.RawQuery
	}
	initialize(t, s, c, col, sid, messages.Version20251125, func(w http.ResponseWriter, r *http.Request, _ seen) {
		http.Error(w, "nope: "+echo(w, r), http.StatusBadGateway)
	})
	gets := make(chan struct{}, 8)
	s.handle(http.MethodGet, func(w http.ResponseWriter, r *http.Request, _ seen) {
		http.Error(w, "no stream for "+echo(w, r), http.StatusInternalServerError)
		gets <- struct{}{}
	})
	post := s.post
	s.handle(http.MethodPost, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Kind == messages.KindNotification {
			http.Error(w, "rejected "+echo(w, r), http.StatusBadRequest)
			return
		}
		post(w, r, rec)
	})
	s.handle(http.MethodDelete, func(w http.ResponseWriter, r *http.Request, _ seen) {
		http.Error(w, "cannot delete "+echo(w, r), http.StatusForbidden)
	})

	require.NoError(t, c.WriteFrames(request(1, "x"), notification("notifications/initialized")))
	failureOf(t, col.next(t))
	c.Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20251125, Listen: true})
	<-gets
	<-gets
	require.NoError(t, c.Close(context.Background()))

	out := logs.String()
	require.NotEmpty(t, out)
	for _, secret := range []string{token, query, sid} {
		assert.NotContains(t, out, secret)
	}
}
