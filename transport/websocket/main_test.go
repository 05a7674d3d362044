package websocket

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	cws "github.com/coder/websocket"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testServer is an httptest server that upgrades every request with coder's
// Accept and hands the connection to a handler.
type testServer struct {
	url  string        // ws:// URL of the server
	stop chan struct{} // closed when the test ends: handlers that wait on it return

	mu      sync.Mutex
	headers []http.Header // of every handshake request
}

// serve starts a server whose handshakes offer the subprotocols in accept
// (nil: the server agrees to none) and run handle on each upgraded
// connection. Cleanup stops the server and waits for every handler, which
// must return once the client's side is closed or ts.stop is closed.
func serve(t *testing.T, accept []string, handle func(ts *testServer, c *cws.Conn)) *testServer {
	t.Helper()
	ts := &testServer{stop: make(chan struct{})}
	var handlers sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Counted before Accept hijacks the connection: from then on
		// srv.Close no longer waits for this handler, handlers.Wait does.
		handlers.Add(1)
		defer handlers.Done()
		ts.mu.Lock()
		ts.headers = append(ts.headers, r.Header.Clone())
		ts.mu.Unlock()
		c, err := cws.Accept(w, r, &cws.AcceptOptions{Subprotocols: accept})
		if err != nil {
			return // Accept answered the request itself
		}
		defer c.CloseNow()
		handle(ts, c)
	}))
	ts.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	t.Cleanup(func() {
		close(ts.stop)
		srv.Close() // after it, every handler has started (and counted itself)
		handlers.Wait()
	})
	return ts
}

// serveHTTP starts a plain HTTP server (no upgrade) for handshake failures.
func serveHTTP(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func (ts *testServer) handshakeHeaders() []http.Header {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]http.Header(nil), ts.headers...)
}

// echo answers every text message with itself until the client goes away,
// and reports the status of the client's close frame on closed (if not nil).
func echo(closed chan<- cws.StatusCode) func(*testServer, *cws.Conn) {
	return func(_ *testServer, c *cws.Conn) {
		ctx := context.Background()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil {
				if closed != nil {
					closed <- cws.CloseStatus(err)
				}
				return
			}
			if c.Write(ctx, typ, b) != nil {
				return
			}
		}
	}
}

// dial connects to ts with d (its URL filled in) and closes the connection
// when the test ends.
func dial(t *testing.T, ts *testServer, d Dialer) transport.Conn {
	t.Helper()
	if d.URL == "" {
		d.URL = ts.url
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := d.Dial(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// readResult is one ReadFrame's outcome, for reads run in a goroutine.
type readResult struct {
	frame []byte
	err   error
}

// readAsync runs one ReadFrame in a goroutine; the channel delivers its
// result. Owner: the test, which receives from the channel (the read ends
// when the connection is closed at the latest).
func readAsync(c transport.Conn) <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		f, err := c.ReadFrame()
		ch <- readResult{f, err}
	}()
	return ch
}

// within receives from ch or fails the test after d.
func within[T any](t *testing.T, d time.Duration, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("nothing received within %s", d)
		panic("unreachable")
	}
}
