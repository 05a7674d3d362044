package mcpengine_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// eagerNotifier is a Streamable HTTP server that declares everything a
// server can send on its own (list changes, subscribe, logging) and, like
// most servers, sends tools/list_changed on the session's GET stream the
// moment notifications/initialized arrives, dropping it when no GET
// stream is open then.
type eagerNotifier struct {
	ts      *httptest.Server
	gets    atomic.Int64
	getSeen chan struct{} // one per GET that opened a stream
	lost    chan struct{} // one per list change dropped for want of a stream
	release chan struct{} // initialize is answered once this is closed

	mu      sync.Mutex
	streams map[string]chan string // session id → its GET stream's events
	next    int
}

func newEagerNotifier(t *testing.T) *eagerNotifier { return newEagerNotifierOver(t, false) }

// newEagerNotifierOver is newEagerNotifier, also speaking prior-knowledge
// h2c when h2c.
func newEagerNotifierOver(t *testing.T, h2c bool) *eagerNotifier {
	s := &eagerNotifier{
		getSeen: make(chan struct{}, 16),
		lost:    make(chan struct{}, 16),
		release: make(chan struct{}),
		streams: map[string]chan string{},
	}
	close(s.release)
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if h2c {
		var protos http.Protocols
		protos.SetHTTP1(true)
		protos.SetUnencryptedHTTP2(true)
		s.ts.Config.Protocols = &protos
	}
	s.ts.Start()
	t.Cleanup(s.ts.Close)
	return s
}

func (s *eagerNotifier) serve(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodGet:
		s.gets.Add(1)
		events := make(chan string, 4)
		s.mu.Lock()
		s.streams[sid] = events
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			if s.streams[sid] == events {
				delete(s.streams, sid)
			}
			s.mu.Unlock()
		}()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		s.getSeen <- struct{}{}
		for {
			select {
			case ev := <-events:
				_, _ = fmt.Fprintf(w, "data: %s\n\n", ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case http.MethodDelete:
		return
	}
	body, _ := io.ReadAll(r.Body)
	m, err := messages.DecodeMessage(body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if m.Kind != messages.KindRequest {
		if m.Method == messages.NotificationInitialized {
			s.mu.Lock()
			events := s.streams[sid]
			s.mu.Unlock()
			if events == nil {
				s.lost <- struct{}{}
			} else {
				events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{}`
	if m.Method == messages.MethodInitialize {
		<-s.release
		s.mu.Lock()
		s.next++
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", s.next))
		s.mu.Unlock()
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{}},"serverInfo":{"name":"eager","version":"1"}}`
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(messages.AppendResult(nil, m.ID, messages.RawMessage(result)))
}

// A server that declares list changes, subscriptions and logging is no
// reason to hold a GET stream open: an HTTP session listens only once the
// embedder asks (here a notification handler added after connecting).
func TestHTTPSessionListensOnlyWhenTheEmbedderAsks(t *testing.T) {
	srv := newEagerNotifier(t)
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)

	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "quiet", Server: mcpengine.ServerConfig{URL: srv.ts.URL}})
	require.NoError(t, err)
	require.NoError(t, s.Ping(ctx))
	// Close waits for every goroutine the connection started, so a GET
	// stream it had decided to open would have been sent by now.
	require.NoError(t, s.Close(ctx))
	assert.Zero(t, srv.gets.Load(), "no GET stream without a handler, a subscription or a client capability")

	s, err = e.Connect(ctx, mcpengine.SessionConfig{Name: "listening", Server: mcpengine.ServerConfig{URL: srv.ts.URL}})
	require.NoError(t, err)
	stop := s.OnNotification(func(mcpengine.Notification) {})
	select {
	case <-srv.getSeen:
	case <-ctx.Done():
		t.Fatal("a notification handler did not open the GET stream")
	}
	stop()
}

// A list change a Streamable HTTP server sends the moment
// notifications/initialized arrives reaches the handler installed before
// the session was ready: the GET stream is open before that notification
// goes out (issue 14).
func TestHTTPListChangedRightAfterInitializeIsNotLost(t *testing.T) {
	for _, h2c := range []bool{false, true} {
		t.Run(map[bool]string{false: "h1", true: "h2c"}[h2c], func(t *testing.T) {
			srv := newEagerNotifierOver(t, h2c)
			srv.release = make(chan struct{}) // hold initialize until the handler is in
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 30*time.Second)

			s, err := e.Open(ctx, mcpengine.SessionConfig{Name: "eager", Server: mcpengine.ServerConfig{URL: srv.ts.URL, HTTP2PriorKnowledge: h2c}})
			require.NoError(t, err)
			got := make(chan string, 4)
			defer s.OnNotification(func(n mcpengine.Notification) { got <- n.Method })()
			close(srv.release)
			require.NoError(t, s.WaitReady(ctx))
			select {
			case m := <-got:
				assert.Equal(t, "notifications/tools/list_changed", m)
			case <-srv.lost:
				t.Fatal("notifications/initialized reached the server before the GET stream was open: the list change was dropped")
			case <-ctx.Done():
				t.Fatal("no list change delivered")
			}
		})
	}
}
