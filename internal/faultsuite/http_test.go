//go:build linux

package faultsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
)

// demoHTTP serves the demo server over HTTP with the given faults, in
// this process; it is closed after the engine. It returns the Streamable
// HTTP endpoint.
func (f *fault) demoHTTP(o demoserver.HTTPOptions) string {
	f.t.Helper()
	hs, err := demoserver.New(demoOptions()).ListenHTTP("127.0.0.1:0", o)
	require.NoError(f.t, err)
	f.closeAfterEngine(hs.Close)
	return hs.StreamableURL()
}

// faultyHTTP serves the demo server behind a handler that answers some
// tools/call requests itself, badly (what the demo server has no fault
// for): the broken answers of the scripted stdio server (both, v1,
// string-id) and trickle {text, gap_ms}, a JSON answer written a byte at
// a time. It returns the Streamable HTTP endpoint.
func (f *fault) faultyHTTP(o demoserver.HTTPOptions) string {
	return f.demoBehind(o, func(w http.ResponseWriter, r *http.Request) bool {
		return r.Method == http.MethodPost && serveFaultyCall(w, r)
	})
}

// demoBehind serves the demo server over HTTP behind front, which sees
// every request first and reports whether it answered it itself; closed
// after the engine. It returns the Streamable HTTP endpoint.
func (f *fault) demoBehind(o demoserver.HTTPOptions, front func(http.ResponseWriter, *http.Request) bool) string {
	h := demoserver.New(demoOptions()).HTTPHandler(o)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if front(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	}))
	f.closeAfterEngine(func(ctx context.Context) error {
		err := h.Close(ctx)
		ts.Close()
		return err
	})
	return ts.URL + demoserver.PathStreamable
}

// serveFaultyCall answers r if it is a tools/call of one of faultyHTTP's
// tools, and reports whether it did; otherwise r's body is left as it was.
func serveFaultyCall(w http.ResponseWriter, r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
			Args struct {
				Text  string `json:"text"`
				GapMS int    `json:"gap_ms"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		return false
	}
	id := string(m.ID)
	var answer string
	switch m.Params.Name {
	case "both":
		answer = `{"jsonrpc":"2.0","id":` + id + `,"result":{},"error":{"code":1,"message":"both"}}`
	case "v1":
		answer = `{"jsonrpc":"1.0","id":` + id + `,"result":{}}`
	case "string-id":
		answer = `{"jsonrpc":"2.0","id":"` + id + `","result":{}}`
	case "trickle":
		text, _ := json.Marshal(m.Params.Args.Text)
		answer = `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`
	default:
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	if m.Params.Name != "trickle" {
		_, _ = io.WriteString(w, answer)
		return true
	}
	gap := time.Duration(m.Params.Args.GapMS) * time.Millisecond
	fl := w.(http.Flusher)
	for i := 0; i < len(answer); i++ {
		if _, err := w.Write([]byte{answer[i]}); err != nil {
			return true
		}
		fl.Flush()
		select {
		case <-r.Context().Done(): // the client gave up
			return true
		case <-time.After(gap): // the fault itself: a server that trickles
		}
	}
	return true
}

func httpServer(url string) mcpengine.ServerConfig {
	return mcpengine.ServerConfig{URL: url, Type: "streamable-http"}
}

// Every third request POST gets 503: that request alone fails, at once,
// with ErrRequestFailed; the others get their own answers; the session
// never drops.
func TestHTTP5xx(t *testing.T) {
	f := newFault(t, "http", "the failed request alone: ErrRequestFailed at once; others unharmed; no restart", mcpengine.Config{})
	s := f.connect("5xx", httpServer(f.demoHTTP(demoserver.HTTPOptions{FailEvery: 3})))
	failed := echoAll(f, s, "5", scale(8, 32), scale(8, 16), func(err error) bool {
		return errors.Is(err, mcpengine.ErrRequestFailed) && strings.Contains(err.Error(), "503")
	})
	assert.Positive(t, failed, "the server failed requests")
	f.mu.Lock()
	for _, d := range f.took {
		assert.Less(t, d, slack, "a failed request was noticed late")
	}
	f.mu.Unlock()
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// The server forgets the session after 5 request POSTs (404): the calls
// in flight fail at once with ErrConnectionLost (ErrSessionExpired), the
// session initializes a new one, and the calls go on.
func TestExpiredSession(t *testing.T) {
	f := newFault(t, "http", "404: ErrConnectionLost (ErrSessionExpired); re-initialized (queued calls wait out the backoff); calls go on", mcpengine.Config{})
	s := f.connect("expiry", httpServer(f.demoHTTP(demoserver.HTTPOptions{ExpireAfter: 5})))
	failed := echoAll(f, s, "e", scale(4, 16), scale(10, 25), func(err error) bool {
		return errors.Is(err, mcpengine.ErrConnectionLost) && errors.Is(err, transport.ErrSessionExpired)
	})
	assert.Positive(t, failed, "the server expired the session")
	f.mu.Lock()
	for _, d := range f.took {
		assert.Less(t, d, slack, "an expiry was noticed late")
	}
	f.mu.Unlock()
	// The session goes on: a ping gets through, at the latest on the
	// next server session (the current one may be at its last request).
	for attempt := 0; ; attempt++ {
		waitState(t, s, mcpengine.StateReady, slack)
		err := s.Ping(f.ctx(requestTimeout))
		if err == nil {
			break
		}
		require.ErrorIs(t, err, transport.ErrSessionExpired)
		require.Less(t, attempt, 2, "a ping never got through")
	}
	assert.Positive(t, s.Stats().Restarts)
}

// SSE answers cut before their response, ended cleanly or aborted: the
// client resumes each with Last-Event-ID and every caller gets its own
// answer exactly once; the session never drops. In 2026-07-28, whose
// streams are not resumable, the cut request fails alone, at once.
func TestCutStreams(t *testing.T) {
	if demoEra == "modern" {
		cutModernStreams(t)
		return
	}
	f := newFault(t, "http", "SSE answers cut mid-way (clean end and abort): resumed, every caller its own answer once", mcpengine.Config{})
	for _, abort := range []bool{false, true} {
		url := f.demoHTTP(demoserver.HTTPOptions{AnswerMode: demoserver.AnswerSSE, DropStreamEvery: 2, DropAbort: abort, SSERetry: 5 * time.Millisecond})
		name := map[bool]string{false: "cut", true: "aborted"}[abort]
		s := f.connect(name, httpServer(url))
		// 8 callers at most: the demo server keeps the last 64 completed
		// answer streams of a session for resumption, and more callers
		// could complete 64 before a cut one is resumed on a loaded machine
		// (the resume then gets 400, and the call ErrRequestFailed).
		assert.Zero(t, echoAll(f, s, name, 8, scale(8, 48), nil))
		assert.Zero(t, s.Stats().LateResponses, "%s: no answer twice", name)
		assert.Zero(t, s.Stats().Restarts, name)
		assert.Equal(t, mcpengine.StateReady, s.State(), name)
	}
}

func cutModernStreams(t *testing.T) {
	f := newFault(t, "http", "SSE answers cut mid-way (2026-07-28: not resumable): that request alone fails at once, ErrRequestFailed; no GET", mcpengine.Config{})
	for _, abort := range []bool{false, true} {
		var gets atomic.Int32
		url := f.demoBehind(demoserver.HTTPOptions{AnswerMode: demoserver.AnswerSSE, DropStreamEvery: 2, DropAbort: abort, SSERetry: 5 * time.Millisecond},
			func(_ http.ResponseWriter, r *http.Request) bool {
				if r.Method == http.MethodGet {
					gets.Add(1)
				}
				return false
			})
		name := map[bool]string{false: "cut", true: "aborted"}[abort]
		s := f.connect(name, httpServer(url))
		failed := echoAll(f, s, name, 8, scale(8, 48), func(err error) bool {
			return errors.Is(err, mcpengine.ErrRequestFailed) && strings.Contains(err.Error(), "answer stream ended before the response")
		})
		assert.Positive(t, failed, "%s: the server cut streams", name)
		f.mu.Lock()
		for _, d := range f.took {
			assert.Less(t, d, slack, "a cut stream was noticed late")
		}
		f.mu.Unlock()
		assert.Zero(t, gets.Load(), "%s: no resumption GET in 2026-07-28", name)
		assert.Zero(t, s.Stats().Restarts, name)
		assert.Equal(t, mcpengine.StateReady, s.State(), name)
	}
}

// A tool call the server never answers (the request stays open): every
// caller returns by its deadline with a *TimeoutError, the abandoned
// requests end, and the session stays ready.
func TestHTTPNeverAnswers(t *testing.T) {
	f := newFault(t, "http", "*TimeoutError = DeadlineExceeded at the caller's deadline (300ms), JSON and SSE; still ready", mcpengine.Config{})
	for _, mode := range []demoserver.AnswerMode{demoserver.AnswerJSON, demoserver.AnswerSSE} {
		s := f.connect("never-"+mode.String(), httpServer(f.demoHTTP(demoserver.HTTPOptions{AnswerMode: mode})))
		deadlineCalls(f, s, scale(25, 250), 300*time.Millisecond, "sleep", func(int) map[string]any { return map[string]any{"ms": 600000} })
		assert.Zero(t, echoAll(f, s, "n", 4, 4, nil))
		assert.Equal(t, mcpengine.StateReady, s.State())
		assert.Zero(t, s.Stats().Restarts)
	}
}

// An answer above Config.MaxFrameBytes, as a JSON body and as an SSE
// event: that request fails at once with ErrRequestFailed, the session
// goes on.
func TestHTTPOversizedFrame(t *testing.T) {
	const limit = 256 << 10
	f := newFault(t, "http", "that request alone: ErrRequestFailed at once (JSON and SSE answers); no restart", mcpengine.Config{MaxFrameBytes: limit})
	for _, mode := range []demoserver.AnswerMode{demoserver.AnswerJSON, demoserver.AnswerSSE} {
		s := f.connect("oversized-"+mode.String(), httpServer(f.demoHTTP(demoserver.HTTPOptions{AnswerMode: mode})))
		r, took := timedCall(s, f.ctx(2*requestTimeout), "large", map[string]any{"bytes": 4 * limit})
		f.tookErr(took)
		assert.ErrorIs(t, r.err, mcpengine.ErrRequestFailed, mode.String())
		assert.Less(t, took, slack, mode.String())
		assert.Zero(t, echoAll(f, s, mode.String(), 4, 4, nil), mode.String())
		assert.Equal(t, mcpengine.StateReady, s.State(), mode.String())
		assert.Zero(t, s.Stats().Restarts, mode.String())
	}
}

// Broken answers to a pending call over HTTP (result and error both,
// "jsonrpc":"1.0", the id as a string): that call fails at once with a
// *ProtocolError, the others get their own answers.
func TestHTTPBrokenAnswer(t *testing.T) {
	f := newFault(t, "http", "*ProtocolError at once (result+error, jsonrpc 1.0, string id); others unharmed; no restart", mcpengine.Config{})
	s := f.connect("broken", httpServer(f.faultyHTTP(demoserver.HTTPOptions{})))
	brokenAnswers(t, f, s)
}

// An HTTP answer written a byte at a time, slowly: a caller whose
// deadline passes mid-answer returns by it; one that waits long enough
// gets its own answer.
func TestHTTPSlowTrickle(t *testing.T) {
	f := newFault(t, "http", "answer arrives a byte per 5ms: short deadline *TimeoutError on time, long one its answer", mcpengine.Config{})
	s := f.connect("trickle", httpServer(f.faultyHTTP(demoserver.HTTPOptions{})))
	text := strings.Repeat("t", 60)
	deadlineCalls(f, s, 4, 200*time.Millisecond, "trickle", func(int) map[string]any { return map[string]any{"text": text, "gap_ms": 5} })
	r, _ := timedCall(s, f.ctx(2*requestTimeout), "trickle", map[string]any{"text": text + "-mine", "gap_ms": 5})
	require.NoError(t, r.err)
	assert.Equal(t, text+"-mine", r.text)
	assert.Zero(t, echoAll(f, s, "t", 4, 2, nil))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// The GET stream is refused with 503 (every time) while calls go on:
// the calls are unharmed and the session never drops.
func TestHTTPGetStreamRefused(t *testing.T) {
	f := newFault(t, "http", "GET stream 503: calls unharmed; no restart", mcpengine.Config{Roots: nil})
	s := f.connect("gets", httpServer(f.demoHTTP(demoserver.HTTPOptions{FailGets: 1 << 30})))
	assert.Zero(t, echoAll(f, s, "g", 4, 8, nil))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// The HTTP server goes away (shut down, then nothing listens): calls
// fail at once with ErrRequestFailed or ErrConnectionLost, none waits for
// its deadline.
func TestHTTPServerGone(t *testing.T) {
	f := newFault(t, "http", "server shut down: calls fail at once (ErrRequestFailed or ErrConnectionLost)", mcpengine.Config{})
	hs, err := demoserver.New(demoOptions()).ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	require.NoError(t, err)
	s := f.connect("gone", httpServer(hs.StreamableURL()))
	assert.Zero(t, echoAll(f, s, "before", 2, 2, nil))
	require.NoError(t, hs.Close(f.ctx(slack)))
	failed := echoAll(f, s, "after", 4, 4, func(err error) bool {
		return errors.Is(err, mcpengine.ErrRequestFailed) || errors.Is(err, mcpengine.ErrConnectionLost)
	})
	assert.Equal(t, 16, failed, "nothing answers")
	f.mu.Lock()
	for _, d := range f.took {
		assert.Less(t, d, slack, "a call waited on a server that is gone")
	}
	f.mu.Unlock()
	// Measured, not asserted: each request fails alone (connection
	// refused is an HTTP-level failure), and the session says ready.
	t.Logf("state %v, restarts %d, last error %v", s.State(), s.Stats().Restarts, s.LastError())
}

// A server that answers a protocol version the engine cannot speak, over
// HTTP: closed for good with ErrVersionMismatch after the restart budget.
func TestHTTPWrongProtocolVersion(t *testing.T) {
	f := newFault(t, "http", "ErrVersionMismatch within the restart budget, then closed", mcpengine.Config{RestartBudget: 2})
	hs, err := demoserver.New(demoserver.Options{AnswerVersion: "1999-01-01", Versions: messages.LegacyVersions}).ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	require.NoError(t, err)
	f.closeAfterEngine(hs.Close)
	start := time.Now()
	s := f.open("old", httpServer(hs.StreamableURL()))
	err = s.WaitReady(f.ctx(2 * requestTimeout))
	f.tookErr(time.Since(start))
	assert.ErrorIs(t, err, mcpengine.ErrVersionMismatch)
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
	assert.Less(t, time.Since(start), slack)
	assert.Equal(t, mcpengine.StateClosed, s.State())
}

// The server expires every session right after its handshake (404 on
// the first call): an expiry loop, slowed by the backoff like a crash
// loop; every call ends by its deadline with ErrConnectionLost or
// ErrTimeout.
func TestHTTPExpiryLoop(t *testing.T) {
	window := time.Duration(scale(3, 10)) * time.Second
	policy := supervisor.Policy{Initial: 20 * time.Millisecond, Max: 500 * time.Millisecond, Jitter: -1}
	maxRestarts := 5 + int((window-620*time.Millisecond)/policy.Max) + 3 // as TestCrashLoop
	f := newFault(t, "http", "restarts slowed by the backoff; calls: ErrConnectionLost or ErrTimeout by their deadline", mcpengine.Config{Backoff: policy})
	s := f.open("expiring", httpServer(f.demoHTTP(demoserver.HTTPOptions{ExpireAfter: 1})))
	end := time.Now().Add(window)
	for time.Now().Before(end) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		r, took := timedCall(s, ctx, "echo", map[string]any{"text": "x"})
		cancel()
		f.tookErr(took)
		if !assert.Error(t, r.err, "every session expires before its first call") {
			continue
		}
		if !errorsIsAny(r.err, mcpengine.ErrConnectionLost, mcpengine.ErrTimeout) {
			t.Errorf("want ErrConnectionLost or ErrTimeout, got %v", r.err)
		}
		assert.Less(t, took, 200*time.Millisecond+slack, "a call waited past its deadline")
	}
	restarts := s.Stats().Restarts
	assert.Positive(t, restarts)
	assert.LessOrEqual(t, restarts, uint64(maxRestarts), "restarts over %v: the backoff was reset by handshakes", window)
}

// The first request POST, initialize, gets 503: the connection attempt
// fails, is retried after the backoff, and Connect succeeds.
func TestHTTPInitializeFails(t *testing.T) {
	f := newFault(t, "http", "initialize 503: retried after the backoff; Connect succeeds", mcpengine.Config{})
	start := time.Now()
	s := f.connect("first-fails", httpServer(f.demoHTTP(demoserver.HTTPOptions{FailNth: 1})))
	t.Logf("ready %v after Open", time.Since(start))
	assert.Zero(t, echoAll(f, s, "i", 2, 2, nil))
	assert.Positive(t, s.Stats().Restarts)
}

// A server that takes the initialize POST and never answers it: Connect
// returns by its ctx deadline, and closing the session ends the request.
func TestHTTPNeverAnswersInitialize(t *testing.T) {
	f := newFault(t, "http", "initialize never answered: Connect returns by its deadline (300ms)", mcpengine.Config{InitTimeout: time.Second})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		// The body read to its end: only then does the server watch the
		// connection, so that the request's context ends when the client
		// gives up.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // the fault: the answer never comes
	}))
	f.closeAfterEngine(func(context.Context) error { ts.Close(); return nil })
	const d = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	_, err := f.eng.Connect(ctx, mcpengine.SessionConfig{Name: "mute", Server: httpServer(ts.URL + demoserver.PathStreamable)})
	took := time.Since(start)
	f.tookErr(took)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, took, d+slack)
}

// WebSocket: the server goes away with calls in flight; they fail at once
// with ErrConnectionLost and the session leaves ready.
func TestWebSocketServerGone(t *testing.T) {
	f := newFault(t, "ws", "server closed: calls in flight ErrConnectionLost at once; session leaves ready", mcpengine.Config{})
	hs, err := demoserver.New(demoOptions()).ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	require.NoError(t, err)
	s := f.connect("ws", mcpengine.ServerConfig{URL: hs.WebSocketURL()})
	assert.Zero(t, echoAll(f, s, "w", 2, 2, nil))
	left := make(chan struct{})
	var once sync.Once
	unwatch := s.WatchState(func(c mcpengine.StateChange) {
		if c.From == mcpengine.StateReady {
			once.Do(func() { close(left) })
		}
	})
	defer unwatch()
	n := scale(10, 100)
	var wg sync.WaitGroup
	var closedAt time.Time
	var mu sync.Mutex
	sent := s.Stats().Requests
	for i := range n {
		wg.Add(1)
		// Owner: this test; exits when the call returns (the server closes).
		go func() {
			defer wg.Done()
			_, err := s.CallTool(f.ctx(2*requestTimeout), "sleep", map[string]any{"ms": 600000})
			mu.Lock()
			took := time.Since(closedAt)
			mu.Unlock()
			f.tookErr(took)
			if !errorsIsAny(err, mcpengine.ErrConnectionLost) {
				t.Errorf("call %d: want ErrConnectionLost, got %v", i, err)
			}
			assert.Less(t, took, slack, "call %d", i)
		}()
	}
	waitRequests(t, s, sent+uint64(n))
	mu.Lock()
	closedAt = time.Now()
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), slack)
	defer cancel()
	require.NoError(t, hs.Close(ctx))
	wg.Wait()
	select {
	case <-left:
	case <-time.After(slack):
		t.Fatalf("still %v %v after the server closed", s.State(), slack)
	}
}

// The 2024-11-05 HTTP+SSE transport: every third message POST gets 503
// (that request alone fails with ErrRequestFailed), then the server goes
// away with calls in flight (they fail at once with ErrConnectionLost,
// and the session leaves ready).
func TestLegacySSE(t *testing.T) {
	f := newFault(t, "sse", "POST 503: ErrRequestFailed alone; stream gone: calls in flight ErrConnectionLost, leaves ready", mcpengine.Config{})
	hs, err := demoserver.New(demoOptions()).ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{FailEvery: 3})
	require.NoError(t, err)
	s := f.connect("legacy", mcpengine.ServerConfig{URL: hs.SSEURL(), Type: "sse"})
	failed := echoAll(f, s, "l", scale(4, 16), scale(6, 16), func(err error) bool {
		return errors.Is(err, mcpengine.ErrRequestFailed) && strings.Contains(err.Error(), "503")
	})
	assert.Positive(t, failed, "the server failed requests")
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)

	left := make(chan struct{})
	var once sync.Once
	unwatch := s.WatchState(func(c mcpengine.StateChange) {
		if c.From == mcpengine.StateReady {
			once.Do(func() { close(left) })
		}
	})
	defer unwatch()
	n := scale(10, 100)
	var wg sync.WaitGroup
	var closedAt time.Time
	var mu sync.Mutex
	sent := s.Stats().Requests
	for i := range n {
		wg.Add(1)
		// Owner: this test; exits when the call returns (the server closes).
		go func() {
			defer wg.Done()
			_, err := s.CallTool(f.ctx(2*requestTimeout), "sleep", map[string]any{"ms": 600000})
			mu.Lock()
			took := time.Since(closedAt)
			mu.Unlock()
			if errors.Is(err, mcpengine.ErrRequestFailed) {
				return // the POST itself got its 503
			}
			f.tookErr(took)
			assert.ErrorIs(t, err, mcpengine.ErrConnectionLost, "call %d", i)
			assert.Less(t, took, slack, "call %d", i)
		}()
	}
	waitRequests(t, s, sent+uint64(n))
	mu.Lock()
	closedAt = time.Now()
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), slack)
	defer cancel()
	require.NoError(t, hs.Close(ctx))
	wg.Wait()
	select {
	case <-left:
	case <-time.After(slack):
		t.Fatalf("still %v %v after the server closed", s.State(), slack)
	}
}

// Nothing listens at the URL: a server never reached fails the first
// connect at once with a typed error naming the refusal (no retrying
// until the deadline: the backoff is for sessions that were up once).
func TestHTTPNothingListens(t *testing.T) {
	f := newFault(t, "http", "connection refused: Connect fails at once with ErrUnreachable, naming the refusal", mcpengine.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + demoserver.PathStreamable
	require.NoError(t, ln.Close()) // a port nothing listens on
	const d = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	_, err = f.eng.Connect(ctx, mcpengine.SessionConfig{Name: "nobody", Server: httpServer(url)})
	took := time.Since(start)
	f.tookErr(took)
	assert.ErrorIs(t, err, mcpengine.ErrUnreachable)
	assert.ErrorContains(t, err, "refused")
	assert.Less(t, took, d+slack)
}

// brokenAnswers sends calls whose answers are broken three ways (result
// and error both, jsonrpc 1.0, the id sent back as a string) beside
// well-formed echoes: each broken one fails at once with a
// *ProtocolError, the echoes get their own answers, and the session
// neither restarts nor times anything out.
func brokenAnswers(t *testing.T, f *fault, s *mcpengine.Session) {
	var wg sync.WaitGroup
	for _, tool := range []string{"both", "v1", "string-id"} {
		for i := range 4 {
			wg.Add(1)
			// Owner: this test; exits when the call returns.
			go func() {
				defer wg.Done()
				r, took := timedCall(s, f.ctx(2*requestTimeout), tool, nil)
				f.tookErr(took)
				assert.ErrorIs(t, r.err, mcpengine.ErrProtocol, "%s %d", tool, i)
				var pe *mcpengine.ProtocolError
				assert.ErrorAs(t, r.err, &pe, "%s %d", tool, i)
				assert.Less(t, took, slack, "%s %d waited for its timeout", tool, i)
			}()
		}
	}
	assert.Zero(t, echoAll(f, s, "b", 8, 4, nil))
	wg.Wait()
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
	assert.Zero(t, s.Stats().Timeouts)
}
