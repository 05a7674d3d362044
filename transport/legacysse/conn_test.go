package legacysse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

const waitFor = 10 * time.Second

// server is a scriptable HTTP+SSE server: GET /sse opens the stream and
// announces endpoint; POST /messages acknowledges with post's status and
// answers requests on the stream.
type server struct {
	*httptest.Server
	client   *http.Client
	endpoint string
	status   atomic.Int32 // for POST /messages; 202 by default
	out      chan string  // raw event text to write on the stream
	gets     chan http.Header
	posts    chan http.Header
	hangUp   chan struct{} // closing it ends the stream
}

func newServer(t *testing.T, endpoint string) *server {
	t.Helper()
	s := &server{
		endpoint: endpoint,
		out:      make(chan string, 64),
		gets:     make(chan http.Header, 8),
		posts:    make(chan http.Header, 64),
		hangUp:   make(chan struct{}),
	}
	s.status.Store(http.StatusAccepted)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		s.gets <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		if s.endpoint != "" {
			fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", s.endpoint)
		}
		fl.Flush()
		for {
			select {
			case ev := <-s.out:
				fmt.Fprint(w, ev)
				fl.Flush()
			case <-s.hangUp:
				return
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		s.posts <- r.Header.Clone()
		body, _ := io.ReadAll(r.Body)
		st := int(s.status.Load())
		if st != http.StatusAccepted {
			http.Error(w, "refused "+r.Header.Get("Authorization"), st)
			return
		}
		w.WriteHeader(st)
		if m, err := messages.DecodeMessage(body); err == nil && m.Kind == messages.KindRequest {
			s.out <- "event: message\ndata: " + string(messages.AppendResult(nil, m.ID, []byte(`{"method":"`+m.Method+`"}`))) + "\n\n"
		}
	})
	s.Server = httptest.NewServer(mux)
	s.client = httpx.NewClient(httpx.ClientOptions{Proxy: httpx.NoProxy})
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

type collector struct {
	frames chan []byte
	fails  chan error
	nfail  atomic.Int32
}

func newCollector() *collector {
	return &collector{frames: make(chan []byte, 64), fails: make(chan error, 4)}
}

func (c *collector) deliver(in *transport.Inbound) { c.frames <- in.Frame }
func (c *collector) fail(err error)                { c.nfail.Add(1); c.fails <- err }

func (c *collector) next(t *testing.T) messages.Message {
	t.Helper()
	select {
	case f := <-c.frames:
		m, err := messages.DecodeMessage(f)
		require.NoError(t, err)
		return m
	case err := <-c.fails:
		t.Fatalf("the connection failed: %v", err)
	case <-time.After(waitFor):
		t.Fatal("no frame")
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

func dial(t *testing.T, s *server, d *Dialer) (*conn, *collector) {
	t.Helper()
	if d.URL == "" {
		d.URL = s.URL + "/sse"
	}
	d.Client = s.client
	c, err := d.Dial(context.Background())
	require.NoError(t, err)
	col := newCollector()
	cc := c.(*conn)
	cc.Start(col.deliver, col.fail)
	t.Cleanup(func() { _ = cc.Close(context.Background()) })
	return cc, col
}

func request(id int64, method string) []byte {
	return messages.AppendRequest(nil, messages.NumberID(id), method, nil)
}

func TestMessagesGoToTheEndpointAndAnswersComeOnTheStream(t *testing.T) {
	s := newServer(t, "/messages?sessionId=abc")
	c, col := dial(t, s, &Dialer{Header: httpx.Bearer("tok-1234")})
	get := <-s.gets
	assert.Equal(t, "text/event-stream", get.Get("Accept"))
	assert.Equal(t, "Bearer tok-1234", get.Get("Authorization"))
	assert.Equal(t, s.URL+"/messages?sessionId=abc", c.endpoint)

	require.NoError(t, c.WriteFrames(request(0, "initialize"), messages.AppendNotification(nil, "notifications/initialized", nil), request(1, "tools/list")))
	got := map[messages.ID]string{}
	for range 2 {
		m := col.next(t)
		got[m.ID] = string(m.Result)
	}
	assert.JSONEq(t, `{"method":"initialize"}`, got[messages.NumberID(0)])
	assert.JSONEq(t, `{"method":"tools/list"}`, got[messages.NumberID(1)])
	for range 3 {
		h := <-s.posts
		assert.Equal(t, "application/json", h.Get("Content-Type"))
		assert.Equal(t, "Bearer tok-1234", h.Get("Authorization"))
	}
	assert.Zero(t, col.nfail.Load())
}

func TestRelativeAndAbsoluteSameOriginEndpoints(t *testing.T) {
	for name, ep := range map[string]func(base string) string{
		"path-relative": func(string) string { return "messages?sessionId=1" },
		"absolute":      func(base string) string { return base + "/messages?sessionId=1" },
		"upper-case":    func(base string) string { return strings.ToUpper(base[:4]) + base[4:] + "/messages?sessionId=1" },
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, "")
			s.endpoint = ep(s.URL)
			c, col := dial(t, s, &Dialer{})
			assert.Equal(t, s.URL+"/messages?sessionId=1", c.endpoint)
			require.NoError(t, c.WriteFrames(request(1, "ping")))
			assert.Equal(t, messages.NumberID(1), col.next(t).ID)
		})
	}
}

func TestCrossOriginEndpointIsRefused(t *testing.T) {
	for name, ep := range map[string]string{
		"other host":   "http://evil.example/messages?sessionId=1",
		"other port":   "http://127.0.0.1:1/messages",
		"other scheme": "https://127.0.0.1/messages",
		"network path": "//evil.example/messages",
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, ep)
			_, err := (&Dialer{URL: s.URL + "/sse", Client: s.client}).Dial(context.Background())
			var oe *EndpointOriginError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, "http://127.0.0.1:"+s.URL[strings.LastIndexByte(s.URL, ':')+1:], oe.Stream)
			assert.NotContains(t, err.Error(), "sessionId")
		})
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"http://Example.COM/x":      "http://example.com:80",
		"https://example.com:443/":  "https://example.com:443",
		"https://example.com/":      "https://example.com:443",
		"http://[::1]:8080/sse":     "http://[::1]:8080",
		"http://user:pw@host:81/p?": "http://host:81",
	} {
		u, err := httpcore.ParseURL(raw)
		require.NoError(t, err)
		assert.Equal(t, want, origin(u), raw)
	}
}

func TestDialWaitsForTheEndpointOnlyAsLongAsItsContext(t *testing.T) {
	s := newServer(t, "") // never sends the endpoint
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { // exits when Dial returns
		_, err := (&Dialer{URL: s.URL + "/sse", Client: s.client}).Dial(ctx)
		errc <- err
	}()
	<-s.gets
	cancel()
	err := <-errc
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "endpoint")
}

func TestStreamThatEndsBeforeTheEndpoint(t *testing.T) {
	s := newServer(t, "")
	close(s.hangUp)
	_, err := (&Dialer{URL: s.URL + "/sse", Client: s.client}).Dial(context.Background())
	assert.ErrorIs(t, err, ErrNoEndpoint)
}

func TestDialFailuresHoldNoSecrets(t *testing.T) {
	s := newServer(t, "/messages")
	_, err := (&Dialer{URL: s.URL + "/missing?token=qs-secret-1", Client: s.client, Header: httpx.Bearer("hdr-secret-2")}).Dial(context.Background())
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusNotFound, se.Status)
	assert.NotContains(t, err.Error(), "qs-secret-1")

	url := s.URL
	s.Close()
	_, err = (&Dialer{URL: url + "/sse?token=qs-secret-1", Client: s.client}).Dial(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "qs-secret-1")

	d := &Dialer{URL: "https://u:pw-secret@host/sse?token=qs-secret-1"}
	assert.Equal(t, "sse:https://host/sse?[redacted]", d.String())
	_, err = (&Dialer{URL: "ftp://host/x?token=qs-secret-1"}).Dial(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "qs-secret-1")
}

func TestStreamLossFailsTheConnection(t *testing.T) {
	s := newServer(t, "/messages")
	c, col := dial(t, s, &Dialer{})
	close(s.hangUp)
	err := col.failure(t)
	assert.ErrorIs(t, err, io.EOF)
	assert.ErrorIs(t, c.WriteFrames(request(1, "x")), err, "writes report the failure")
}

func TestOversizedEventFailsTheConnection(t *testing.T) {
	s := newServer(t, "/messages")
	_, col := dial(t, s, &Dialer{MaxFrameBytes: 64})
	s.out <- "event: message\ndata: " + strings.Repeat("x", 100) + "\n\n"
	var tl *transport.FrameTooLargeError
	require.ErrorAs(t, col.failure(t), &tl)
	assert.Equal(t, 64, tl.Limit)
}

func TestRefusedPostFailsOnlyItsRequest(t *testing.T) {
	s := newServer(t, "/messages")
	c, col := dial(t, s, &Dialer{Header: httpx.Bearer("tok-5678")})
	s.status.Store(http.StatusInternalServerError)
	require.NoError(t, c.WriteFrames(request(1, "x")))
	m := col.next(t)
	require.NotNil(t, m.Error)
	assert.EqualValues(t, transport.CodeRequestFailed, m.Error.Code)
	var f transport.RequestFailure
	require.NoError(t, messages.Unmarshal(m.Error.Data, &f))
	assert.Equal(t, http.StatusInternalServerError, f.Status)
	assert.NotContains(t, f.Reason, "tok-5678")

	s.status.Store(http.StatusAccepted)
	require.NoError(t, c.WriteFrames(request(2, "y")))
	assert.Nil(t, col.next(t).Error)
	assert.Zero(t, col.nfail.Load())
}

func TestNotFoundExpiresTheSession(t *testing.T) {
	s := newServer(t, "/messages")
	c, col := dial(t, s, &Dialer{})
	s.status.Store(http.StatusNotFound)
	require.NoError(t, c.WriteFrames(request(1, "x")))
	assert.ErrorIs(t, col.failure(t), transport.ErrSessionExpired)
}

func TestMessagesBeforeStartAreKept(t *testing.T) {
	s := newServer(t, "/messages")
	s.out <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
	s.out <- "event: other\ndata: ignored\n\n"
	s.out <- "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
	c, err := (&Dialer{URL: s.URL + "/sse", Client: s.client}).Dial(context.Background())
	require.NoError(t, err)
	defer c.Close(context.Background())
	col := newCollector()
	// Start later: the stream may already have delivered.
	c.(transport.RequestConn).Start(col.deliver, col.fail)
	assert.Equal(t, "notifications/message", col.next(t).Method)
	assert.Equal(t, "notifications/tools/list_changed", col.next(t).Method)
}

func TestCloseEndsEverything(t *testing.T) {
	s := newServer(t, "/messages")
	c, col := dial(t, s, &Dialer{})
	require.NoError(t, c.Close(context.Background()))
	require.NoError(t, c.Close(context.Background()))
	assert.Zero(t, c.sched.Running())
	assert.ErrorIs(t, c.WriteFrames(request(1, "x")), transport.ErrClosed)
	_, err := c.ReadFrame()
	assert.ErrorIs(t, err, transport.ErrClosed)
	assert.Zero(t, col.nfail.Load(), "Close is not a failure")
	assert.False(t, errors.Is(err, httpcore.ErrPushOnly))
}
