package streamable

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/internal/sse"
)

// waitFor bounds every wait of the tests: long enough for a loaded 2-core
// machine, short enough that a hang fails the test instead of the run.
const waitFor = 10 * time.Second

// seen is one request as the test server received it.
type seen struct {
	Method string
	Header http.Header
	Msg    messages.Message // decoded POST body
	Body   []byte
}

// server is a scriptable MCP endpoint: each test sets the handlers it
// needs; every request is recorded and announced on reqs.
type server struct {
	*httptest.Server
	client *http.Client

	mu   sync.Mutex
	log  []seen
	reqs map[string]chan seen // by method

	post   func(w http.ResponseWriter, r *http.Request, s seen)
	get    func(w http.ResponseWriter, r *http.Request, s seen)
	delete func(w http.ResponseWriter, r *http.Request, s seen)
}

func newServer(t *testing.T) *server { return newServerOver(t, false) }

// newServerOver is newServer; with h2c the server also speaks
// prior-knowledge h2c and its client does (the GET stream then goes over
// net/http's HTTP/2 client).
func newServerOver(t *testing.T, h2c bool) *server {
	t.Helper()
	s := &server{reqs: map[string]chan seen{
		http.MethodPost: make(chan seen, 256), http.MethodGet: make(chan seen, 256), http.MethodDelete: make(chan seen, 16),
	}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if h2c {
		var protos http.Protocols
		protos.SetHTTP1(true)
		protos.SetUnencryptedHTTP2(true)
		s.Config.Protocols = &protos
	}
	s.Start()
	s.client = httpx.NewClient(httpx.ClientOptions{Proxy: httpx.NoProxy, HTTP2PriorKnowledge: h2c})
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	rec := seen{Method: r.Method, Header: r.Header.Clone()}
	if r.Method == http.MethodPost {
		rec.Body, _ = io.ReadAll(r.Body)
		rec.Msg, _ = messages.DecodeMessage(rec.Body)
	}
	s.mu.Lock()
	s.log = append(s.log, rec)
	h := map[string]func(http.ResponseWriter, *http.Request, seen){
		http.MethodPost: s.post, http.MethodGet: s.get, http.MethodDelete: s.delete,
	}[r.Method]
	s.mu.Unlock()
	if ch := s.reqs[r.Method]; ch != nil {
		ch <- rec
	}
	if h == nil {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	h(w, r, rec)
}

// handle sets the handlers under the lock (tests may change them while a
// connection runs).
func (s *server) handle(method string, h func(w http.ResponseWriter, r *http.Request, s seen)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch method {
	case http.MethodPost:
		s.post = h
	case http.MethodGet:
		s.get = h
	case http.MethodDelete:
		s.delete = h
	}
}

// next returns the next request the server received with the given method.
func (s *server) next(t *testing.T, method string) seen {
	t.Helper()
	select {
	case r := <-s.reqs[method]:
		return r
	case <-time.After(waitFor):
		t.Fatalf("no %s request arrived", method)
	}
	return seen{}
}

func (s *server) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Method == method {
			n++
		}
	}
	return n
}

// collector receives what a connection delivers.
type collector struct {
	frames chan []byte
	fails  chan error
	nfail  atomic.Int32
}

func newCollector() *collector {
	return &collector{frames: make(chan []byte, 256), fails: make(chan error, 16)}
}

func (c *collector) deliver(in *transport.Inbound) { c.frames <- in.Frame }
func (c *collector) fail(err error) {
	c.nfail.Add(1)
	c.fails <- err
}

// next returns the next delivered frame, decoded.
func (c *collector) next(t *testing.T) messages.Message {
	t.Helper()
	select {
	case f := <-c.frames:
		m, err := messages.DecodeMessage(f)
		require.NoError(t, err, "%s", f)
		return m
	case err := <-c.fails:
		t.Fatalf("the connection failed: %v", err)
	case <-time.After(waitFor):
		t.Fatal("no frame was delivered")
	}
	return messages.Message{}
}

func (c *collector) failure(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.fails:
		return err
	case <-time.After(waitFor):
		t.Fatal("the connection did not fail")
	}
	return nil
}

// dial connects d (its URL and client filled in from s unless set) and
// starts delivery into a new collector; Close runs at cleanup.
func dial(t *testing.T, s *server, d *Dialer) (*conn, *collector) {
	t.Helper()
	if d.URL == "" {
		d.URL = s.URL + "/mcp"
	}
	if d.Client == nil {
		d.Client = s.client
	}
	c, err := d.Dial(context.Background())
	require.NoError(t, err)
	cc := c.(*conn)
	col := newCollector()
	cc.Start(col.deliver, col.fail)
	t.Cleanup(func() { _ = cc.Close(context.Background()) })
	return cc, col
}

func request(id int64, method string) []byte {
	return messages.AppendRequest(nil, messages.NumberID(id), method, []byte(`{}`))
}

func notification(method string) []byte {
	return messages.AppendNotification(nil, method, nil)
}

func cancelled(id int64) []byte {
	return messages.AppendNotification(nil, messages.NotificationCancelled, []byte(fmt.Sprintf(`{"requestId":%d}`, id)))
}

func result(id messages.ID, result string) []byte {
	return messages.AppendResult(nil, id, []byte(result))
}

func initializeResult(id messages.ID, version string) []byte {
	return result(id, `{"protocolVersion":"`+version+`","capabilities":{},"serverInfo":{"name":"t","version":"1"}}`)
}

func writeJSON(w http.ResponseWriter, frame []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(frame)
}

// sseStream starts an event stream answer and returns a function that
// writes one event (empty fields are left out) and flushes it.
func sseStream(w http.ResponseWriter) func(id, data string, retry time.Duration) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	return func(id, data string, retry time.Duration) {
		if id != "" {
			fmt.Fprintf(w, "id: %s\n", id)
		}
		if retry > 0 {
			fmt.Fprintf(w, "retry: %d\n", retry.Milliseconds())
		}
		fmt.Fprintf(w, "data: %s\n\n", data)
		fl.Flush()
	}
}

// initialize runs the initialize exchange on c against a server whose POST
// handler answers initialize with session id sid (and delegates anything
// else to rest).
func initialize(t *testing.T, s *server, c *conn, col *collector, sid, version string, rest func(w http.ResponseWriter, r *http.Request, s seen)) {
	t.Helper()
	s.handle(http.MethodPost, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Method == messages.MethodInitialize {
			if sid != "" {
				w.Header().Set("Mcp-Session-Id", sid)
			}
			writeJSON(w, initializeResult(rec.Msg.ID, version))
			return
		}
		if rec.Msg.Kind != messages.KindRequest {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		rest(w, r, rec)
	})
	require.NoError(t, c.WriteFrames(request(0, messages.MethodInitialize)))
	m := col.next(t)
	require.Equal(t, messages.NumberID(0), m.ID)
	s.next(t, http.MethodPost)
}

func echoResult(w http.ResponseWriter, _ *http.Request, rec seen) {
	writeJSON(w, result(rec.Msg.ID, `{"method":"`+rec.Msg.Method+`"}`))
}

// eventually polls cond (for state the transport has no event for).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	testkit.Eventually(t, waitFor, cond, msg)
}

// failureOf decodes the RequestFailure of a synthesized error answer.
func failureOf(t *testing.T, m messages.Message) transport.RequestFailure {
	t.Helper()
	require.NotNil(t, m.Error, "expected an error answer")
	require.EqualValues(t, transport.CodeRequestFailed, m.Error.Code)
	var f transport.RequestFailure
	require.NoError(t, messages.Unmarshal(m.Error.Data, &f))
	return f
}

// newReaderWithRetry returns an SSE reader that has read stream.
func newReaderWithRetry(t *testing.T, stream string) *sse.Reader {
	t.Helper()
	rd := sse.NewReader(strings.NewReader(stream), 100)
	for {
		if _, err := rd.Next(); err != nil {
			return rd
		}
	}
}

// entries returns a copy of everything the server received so far.
func (s *server) entries() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.log...)
}

// last returns the latest request the server received.
func (s *server) last() seen {
	e := s.entries()
	return e[len(e)-1]
}
