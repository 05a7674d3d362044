package httpx

import (
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
)

// heldServer is an HTTP/1.1 server that counts the connections open to it
// (and the most ever open at once) and holds every POST until released.
type heldServer struct {
	srv     *httptest.Server
	open    atomic.Int64
	peak    atomic.Int64
	inside  atomic.Int64
	release chan struct{}
}

func newHeldServer(t *testing.T) *heldServer {
	h := &heldServer{release: make(chan struct{})}
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet { // a standing stream: open until released
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-h.release
			return
		}
		h.inside.Add(1)
		<-h.release
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	h.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			n := h.open.Add(1)
			for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			h.open.Add(-1)
		}
	}
	h.srv.Start()
	t.Cleanup(h.srv.Close)
	t.Cleanup(h.free)
	return h
}

func (h *heldServer) free() {
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

func post(c *http.Client, url string) error {
	resp, err := c.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// stats is StatsOf, for clients NewClient built.
func stats(t *testing.T, c *http.Client) PoolStats {
	st, ok := StatsOf(c)
	require.True(t, ok, "NewClient's client has stats")
	return st
}

// With the cap at n and 4n calls in flight over HTTP/1.1, at most n
// connections are ever open, the other 3n calls wait for one (and the
// stats say so), and every call succeeds.
func TestCapBoundsHTTP1ConnectionsAndQueuesTheRest(t *testing.T) {
	const n = 4
	h := newHeldServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy, MaxConnsPerHost: n})
	defer c.CloseIdleConnections()

	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for range 4 * n {
		wg.Add(1)
		go func() { // Owner: this test. Exits when its call is answered.
			defer wg.Done()
			errs <- post(c, h.srv.URL)
		}()
	}
	require.Eventually(t, func() bool {
		st, _ := StatsOf(c)
		return h.inside.Load() == n && st.Waiting == 3*n
	}, 30*time.Second, time.Millisecond, "n calls at the server, 3n waiting for a connection")
	st := stats(t, c)
	assert.Equal(t, n, st.MaxConnsPerHost)
	assert.EqualValues(t, n, st.Conns, "the cap's connections, no more")
	assert.EqualValues(t, n, st.Dials)

	h.free()
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.EqualValues(t, 4*n, h.inside.Load(), "every call reached the server")
	assert.LessOrEqual(t, h.peak.Load(), int64(n), "never more connections open than the cap")
	st = stats(t, c)
	assert.EqualValues(t, 3*n, st.Waited, "the calls beyond the cap waited")
	assert.Zero(t, st.Waiting)
	assert.LessOrEqual(t, st.Dials, uint64(n))
}

// A standing stream (a GET) holds an HTTP/1.1 connection for its life
// outside the cap: with the cap at 1 and a stream open, calls still get
// the cap's connection.
func TestStandingStreamsLeaveTheCapToCalls(t *testing.T) {
	h := newHeldServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy, MaxConnsPerHost: 1})
	defer c.CloseIdleConnections()
	resp, err := c.Get(h.srv.URL)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()

	done := make(chan error, 1)
	go func() { done <- post(c, h.srv.URL) }() // Owner: this test. Exits when answered.
	require.Eventually(t, func() bool { return h.inside.Load() == 1 }, 30*time.Second, time.Millisecond,
		"the call reached the server beside the stream")
	assert.EqualValues(t, 2, stats(t, c).Conns, "the stream's connection and the call's")
	h.free()
	require.NoError(t, <-done)
}

// A negative cap means none: every call in flight gets a connection.
func TestNegativeCapMeansNone(t *testing.T) {
	h := newHeldServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy, MaxConnsPerHost: -1})
	defer c.CloseIdleConnections()
	const n = 8
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { // Owner: this test. Exits when its call is answered.
			defer wg.Done()
			assert.NoError(t, post(c, h.srv.URL))
		}()
	}
	require.Eventually(t, func() bool { return h.inside.Load() == n }, 30*time.Second, time.Millisecond)
	st := stats(t, c)
	assert.Zero(t, st.MaxConnsPerHost)
	assert.EqualValues(t, n, st.Conns)
	h.free()
	wg.Wait()
	assert.Zero(t, stats(t, c).Waited)
}
