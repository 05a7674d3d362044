package httpx

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// burstServer speaks HTTP/1.1 and h2c, counts the TCP connections opened
// to it, the connections that carried a request and the requests that
// came over HTTP/2, and holds every request of a burst until the whole
// burst arrived, so that they are all in flight at once.
type burstServer struct {
	srv     *httptest.Server
	conns   atomic.Int64
	h2      atomic.Int64
	carried sync.Map // RemoteAddr of every connection that carried a request
	inside  sync.WaitGroup
	hold    atomic.Pointer[chan struct{}]
}

func (b *burstServer) connsThatCarriedRequests() int {
	n := 0
	b.carried.Range(func(any, any) bool { n++; return true })
	return n
}

func newBurstServer(t *testing.T) *burstServer {
	b := &burstServer{}
	b.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			b.h2.Add(1)
		}
		b.carried.Store(r.RemoteAddr, true)
		if hold := b.hold.Load(); hold != nil {
			b.inside.Done()
			<-*hold
		}
		_, _ = io.WriteString(w, "ok")
	}))
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	b.srv.Config.Protocols = &p
	b.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			b.conns.Add(1)
		}
	}
	b.srv.Start()
	t.Cleanup(b.srv.Close)
	return b
}

func getAll(t *testing.T, c *http.Client, url string) {
	resp, err := c.Get(url)
	if !assert.NoError(t, err) {
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// burst sends n requests all in flight at once and returns once every
// answer was read.
func (b *burstServer) burst(t *testing.T, c *http.Client, n int) {
	hold := make(chan struct{})
	b.hold.Store(&hold)
	defer b.hold.Store(nil)
	b.inside.Add(n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { // Owner: this test. Exits when its request is answered.
			defer wg.Done()
			getAll(t, c, b.srv.URL)
		}()
	}
	b.inside.Wait()
	close(hold)
	wg.Wait()
}

// Over HTTP/1.1 a burst of concurrent requests is carried again by the
// connections the previous burst opened: the idle pool keeps as many as
// were in use at once (a pool capped at a fixed 256 per host closed the
// rest after each request, each one a socket in TIME_WAIT).
func TestBurstsOfConcurrentRequestsReuseTheirConnections(t *testing.T) {
	b := newBurstServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy})
	defer c.CloseIdleConnections()
	const n = 300
	b.burst(t, c, n)
	first := b.conns.Load()
	require.Equal(t, int64(n), first, "HTTP/1.1: one connection per request in flight")
	b.burst(t, c, n)
	b.burst(t, c, n)
	assert.Equal(t, first, b.conns.Load(), "later bursts reuse the first burst's connections")
}

// With HTTP2PriorKnowledge every request to an h2c server goes over
// HTTP/2, and concurrent requests share its one connection.
func TestPriorKnowledgeH2CCarriesConcurrentRequestsOnOneConnection(t *testing.T) {
	b := newBurstServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy, HTTP2PriorKnowledge: true})
	defer c.CloseIdleConnections()
	getAll(t, c, b.srv.URL) // the connection, before the burst
	const n = 50
	b.burst(t, c, n)
	assert.Equal(t, int64(n+1), b.h2.Load(), "every request over HTTP/2")
	// Connections that carried requests, not dials: under load a burst
	// sometimes makes net/http open spare TCP connections that close again
	// without ever speaking HTTP/2 (the server saw one HTTP/2 connection
	// while 10–38 TCP connections were accepted, about 1 run in 150).
	assert.Equal(t, 1, b.connsThatCarriedRequests(), "one connection carried them all")
}
