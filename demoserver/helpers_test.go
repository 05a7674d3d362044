package demoserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testTimeout bounds every wait in the tests; nothing waits this long
// unless the server is broken.
const testTimeout = 20 * time.Second

func newConnPair() (client, server transport.Conn) { return memory.NewPipe() }

// running is a server serving one test connection.
type running struct {
	srv    *Server
	cancel context.CancelFunc
	done   chan error
}

// serve starts srv on a new pipe and returns the client end. Cleanup
// closes the client end and waits for Serve to return.
func serve(t testing.TB, srv *Server) (transport.Conn, *running) {
	t.Helper()
	cconn, sconn := newConnPair()
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{srv: srv, cancel: cancel, done: make(chan error, 1)}
	// Owner: the test; exits when Serve returns (client closed, ctx
	// cancelled or fault); cleanup waits for it.
	go func() { run.done <- srv.Serve(ctx, sconn) }()
	t.Cleanup(func() {
		_ = cconn.Close(context.Background())
		cancel()
		select {
		case <-run.done:
		case <-time.After(testTimeout):
			t.Error("Serve did not return")
		}
	})
	return cconn, run
}

// wait returns Serve's result.
func (r *running) wait(t testing.TB) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err // keep it for cleanup
		return err
	case <-time.After(testTimeout):
		t.Fatal("Serve did not return")
		return nil
	}
}

// client is a minimal MCP client for the tests: a reader goroutine routes
// responses to callers, queues notifications, and answers server requests
// with onRequest.
type client struct {
	t    testing.TB
	conn transport.Conn

	wmu    sync.Mutex
	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan messages.Message

	notifs        chan messages.Message
	invalid       chan error
	batchFrames   atomic.Int64
	onRequest     func(m messages.Message) (any, *messages.WireError)
	readerStopped chan struct{}
	readErr       error
}

func newClient(t testing.TB, conn transport.Conn, onRequest func(messages.Message) (any, *messages.WireError)) *client {
	c := &client{
		t:             t,
		conn:          conn,
		pending:       make(map[int64]chan messages.Message),
		notifs:        make(chan messages.Message, 1024),
		invalid:       make(chan error, 1024),
		onRequest:     onRequest,
		readerStopped: make(chan struct{}),
	}
	// Owner: the test client; exits when ReadFrame fails (the server or the
	// test closed the connection). Cleanup waits for it.
	go c.read()
	t.Cleanup(func() {
		_ = conn.Close(context.Background())
		<-c.readerStopped
	})
	return c
}

// start serves srv and returns a client that has completed the handshake.
func start(t testing.TB, opts Options) (*client, *running) {
	t.Helper()
	conn, run := serve(t, New(opts))
	c := newClient(t, conn, nil)
	c.initialize(messages.LatestVersion)
	return c, run
}

func (c *client) read() {
	defer close(c.readerStopped)
	for {
		frame, err := c.conn.ReadFrame()
		if err != nil {
			c.readErr = err
			return
		}
		if len(frame) > 0 && frame[0] == '[' {
			c.batchFrames.Add(1)
		}
		msgs, errs := messages.DecodeFrame(frame)
		for _, e := range errs {
			c.invalid <- e
		}
		for _, m := range msgs {
			switch m.Kind {
			case messages.KindResponse:
				n, _ := m.ID.Int64()
				c.mu.Lock()
				ch := c.pending[n]
				delete(c.pending, n)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			case messages.KindNotification:
				c.notifs <- m
			case messages.KindRequest:
				c.answer(m)
			}
		}
	}
}

// noAnswer, returned by an onRequest handler, leaves the request unanswered.
var noAnswer = &messages.WireError{Message: "no answer"}

func (c *client) answer(m messages.Message) {
	var result any
	werr := &messages.WireError{Code: messages.CodeMethodNotFound, Message: "not supported"}
	if c.onRequest != nil {
		result, werr = c.onRequest(m)
	}
	if werr == noAnswer {
		return
	}
	var frame []byte
	if werr != nil {
		frame = messages.AppendError(nil, m.ID, werr)
	} else {
		raw, err := messages.Marshal(result)
		if err != nil {
			panic(err)
		}
		frame = messages.AppendResult(nil, m.ID, raw)
	}
	_ = c.write(frame)
}

func (c *client) write(frames ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.conn.WriteFrames(frames...)
}

func encodeParams(t testing.TB, params any) messages.RawMessage {
	switch p := params.(type) {
	case nil:
		return nil
	case messages.RawMessage:
		return p
	case string:
		return messages.RawMessage(p)
	}
	raw, err := messages.Marshal(params)
	require.NoError(t, err)
	return raw
}

// send sends a request and returns the channel its response arrives on.
func (c *client) send(method string, params any) (int64, chan messages.Message) {
	id := c.nextID.Add(1)
	ch := make(chan messages.Message, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	require.NoError(c.t, c.write(messages.AppendRequest(nil, messages.NumberID(id), method, encodeParams(c.t, params))))
	return id, ch
}

func (c *client) await(ch chan messages.Message) messages.Message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(testTimeout):
		c.t.Fatal("no response")
	case <-c.readerStopped:
		select {
		case m := <-ch:
			return m
		default:
		}
		c.t.Fatalf("connection ended while waiting: %v", c.readErr)
	}
	return messages.Message{}
}

// call sends a request and waits for its response.
func (c *client) call(method string, params any) messages.Message {
	c.t.Helper()
	_, ch := c.send(method, params)
	return c.await(ch)
}

// result calls and decodes a success result into out.
func (c *client) result(method string, params, out any) {
	c.t.Helper()
	m := c.call(method, params)
	require.Nil(c.t, m.Error, "%s failed", method)
	if out != nil {
		require.NoError(c.t, messages.Unmarshal(m.Result, out))
	}
}

// callErr calls and returns the error response.
func (c *client) callErr(method string, params any) *messages.WireError {
	c.t.Helper()
	m := c.call(method, params)
	require.NotNil(c.t, m.Error, "%s: expected an error, got %s", method, m.Result)
	return m.Error
}

func (c *client) notify(method string, params any) {
	require.NoError(c.t, c.write(messages.AppendNotification(nil, method, encodeParams(c.t, params))))
}

func (c *client) initialize(version string) messages.InitializeResult {
	c.t.Helper()
	var res messages.InitializeResult
	c.result(messages.MethodInitialize, &messages.InitializeParams{
		ProtocolVersion: version,
		Capabilities: messages.ClientCapabilities{
			Roots:       &messages.RootsCapability{ListChanged: true},
			Sampling:    &messages.SamplingCapability{},
			Elicitation: &messages.ElicitationCapability{},
		},
		ClientInfo: messages.Implementation{Name: "test-client", Version: "0"},
	}, &res)
	c.notify(messages.NotificationInitialized, nil)
	return res
}

// tool calls a tool and decodes its result.
func (c *client) tool(name string, args any) messages.CallToolResult {
	c.t.Helper()
	var res messages.CallToolResult
	c.result(messages.MethodToolsCall, &messages.CallToolParams{Name: name, Arguments: args}, &res)
	return res
}

// text returns the text of a result's single text block.
func text(t testing.TB, res messages.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	require.Equal(t, messages.ContentTypeText, res.Content[0].Type)
	return res.Content[0].Text
}

// nextNotification returns the next notification (waiting for it).
func (c *client) nextNotification() messages.Message {
	c.t.Helper()
	select {
	case m := <-c.notifs:
		return m
	case <-time.After(testTimeout):
		c.t.Fatal("no notification")
	}
	return messages.Message{}
}

// noNotification asserts that no notification is queued now.
func (c *client) noNotification() {
	c.t.Helper()
	select {
	case m := <-c.notifs:
		c.t.Fatalf("unexpected notification %s %s", m.Method, m.Params)
	default:
	}
}

// awaitStats waits until cond holds.
func awaitStats(t testing.TB, srv *Server, cond func(Stats) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, srv.Await(ctx, cond), "stats: %+v", srv.Stats())
}

// rawConn is a connection driven frame by frame, for the fault tests.
type rawConn struct {
	t    testing.TB
	conn transport.Conn
	id   int64
}

func (r *rawConn) send(method string, params any) int64 {
	r.t.Helper()
	r.id++
	require.NoError(r.t, r.conn.WriteFrames(messages.AppendRequest(nil, messages.NumberID(r.id), method, encodeParams(r.t, params))))
	return r.id
}

func (r *rawConn) readFrame() []byte {
	r.t.Helper()
	type res struct {
		f   []byte
		err error
	}
	ch := make(chan res, 1)
	// Owner: this call; exits when ReadFrame returns, which the deadline
	// below guarantees by closing the connection.
	go func() {
		f, err := r.conn.ReadFrame()
		ch <- res{f, err}
	}()
	select {
	case x := <-ch:
		require.NoError(r.t, x.err)
		return x.f
	case <-time.After(testTimeout):
		_ = r.conn.Close(context.Background())
		<-ch
		r.t.Fatal("no frame")
		return nil
	}
}

func (r *rawConn) readMessage() messages.Message {
	r.t.Helper()
	m, err := messages.DecodeMessage(r.readFrame())
	require.NoError(r.t, err)
	return m
}

// readEOF asserts that the server closed the connection.
func (r *rawConn) readEOF() {
	r.t.Helper()
	_, err := r.conn.ReadFrame()
	require.True(r.t, errors.Is(err, io.EOF), "want EOF, got %v", err)
}

func (r *rawConn) initialize() {
	r.t.Helper()
	r.send(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion,
		ClientInfo: messages.Implementation{Name: "raw", Version: "0"}})
	m := r.readMessage()
	require.Nil(r.t, m.Error)
	require.NoError(r.t, r.conn.WriteFrames(messages.AppendNotification(nil, messages.NotificationInitialized, nil)))
}
