package actors

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// pushConn turns a pull connection into a push one the way an HTTP
// transport is: a goroutine of its own reads and calls deliver; the session
// must then run no reader of its own. It records what the session told it.
type pushConn struct {
	transport.Conn
	infos    chan transport.SessionInfo
	reads    atomic.Int32 // ReadFrame calls from outside: must stay 0
	done     chan struct{}
	failNext chan error

	mu   sync.Mutex
	sent []transport.Message // what Send was told, frames decoded apart in decoded
	// decoded are the sent frames as decoded, to hold the messages to.
	decoded []messages.Message
}

var _ transport.RequestConn = (*pushConn)(nil)

// Send records and writes the messages' frames to the inner connection.
func (p *pushConn) Send(msgs ...transport.Message) error {
	for _, m := range msgs {
		d, errs := messages.AppendDecodedFrame(nil, append([]byte(nil), m.Frame...)) // the decoder may work in place
		p.mu.Lock()
		if len(errs) == 0 && len(d) == 1 {
			p.decoded = append(p.decoded, d[0])
			kept := m
			kept.Frame = nil
			p.sent = append(p.sent, kept)
		}
		p.mu.Unlock()
		if err := p.WriteFrames(m.Frame); err != nil {
			return err
		}
	}
	return nil
}

// The session's caller never runs its own round trip here: nothing is held.
func (p *pushConn) HoldRequest(messages.ID) bool { return false }
func (p *pushConn) RunRequest(messages.ID) bool  { return false }
func (p *pushConn) ReleaseRequest(messages.ID)   {}
func (p *pushConn) AbortRequest(messages.ID)     {}
func (p *pushConn) SessionID() string            { return "" }

func (p *pushConn) ReadFrame() ([]byte, error) {
	p.reads.Add(1)
	return nil, errors.New("push connection: ReadFrame must not be called")
}

func (p *pushConn) Start(deliver func(*transport.Inbound), fail func(error)) {
	// Owner: the connection. Exits when the inner connection's ReadFrame
	// fails (Close guarantees it) or a test injects a failure.
	go func() {
		defer close(p.done)
		frames := make(chan []byte)
		errs := make(chan error, 1)
		go func() { // exits with the inner ReadFrame's error
			for {
				f, err := p.Conn.ReadFrame()
				if err != nil {
					errs <- err
					close(frames)
					return
				}
				frames <- f
			}
		}()
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					fail(<-errs)
					return
				}
				// Decoded here, once: the session must take the
				// messages as they are and never decode the frame again,
				// which this fake garbles to tell.
				in := transport.DecodeInbound(f, 0)
				in.Frame = []byte("not a frame: already decoded")
				deliver(in)
			case err := <-p.failNext:
				fail(err)
				_ = p.Conn.Close(context.Background())
				for range frames {
				}
				return
			}
		}
	}()
}

func (p *pushConn) Negotiated(info transport.SessionInfo) {
	select {
	case p.infos <- info:
	default:
	}
}

func (p *pushConn) Close(ctx context.Context) error {
	err := p.Conn.Close(ctx)
	<-p.done // no callback after Close returns
	return err
}

func TestPushConnectionRunsWithoutReaderAndLearnsTheSession(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := demoserver.New(demoserver.Options{})
	inner := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) })
	var mu sync.Mutex
	var conns []*pushConn
	dialer := transport.DialerFunc{Name: "push", Func: func(dctx context.Context) (transport.Conn, error) {
		c, err := inner.Dial(dctx)
		if err != nil {
			return nil, err
		}
		pc := &pushConn{Conn: c, infos: make(chan transport.SessionInfo, 8), done: make(chan struct{}), failNext: make(chan error, 1)}
		mu.Lock()
		conns = append(conns, pc)
		mu.Unlock()
		return pc, nil
	}}
	h, stop := startSession(t, SessionConfig{Name: "push", Dialer: dialer})
	defer stop()
	waitReady(t, h.Shared())

	mu.Lock()
	first := conns[0]
	mu.Unlock()
	select {
	case info := <-first.infos:
		assert.Equal(t, messages.LatestVersion, info.ProtocolVersion)
		assert.False(t, info.Listen, "the demo server declares list changes and subscriptions, but nobody asked for them")
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was never told the negotiated session")
	}
	stopWatch := h.Shared().WatchNotifications(func(Notification) {})
	h.RefreshListen()
	select {
	case info := <-first.infos:
		assert.True(t, info.Listen, "a notification handler is reason to listen")
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not told that a handler listens")
	}
	stopWatch()

	call := func() error {
		c := NewCall(messages.MethodPing, nil)
		h.Post(c)
		select {
		case <-c.Done():
			return c.Err
		case <-time.After(5 * time.Second):
			t.Fatal("ping never answered")
			return nil
		}
	}
	require.NoError(t, call())

	// The session told the transport what each message is, beside its
	// frame: the transport never decodes what the session encoded.
	first.mu.Lock()
	require.NotEmpty(t, first.sent)
	for i, m := range first.sent {
		d := first.decoded[i]
		assert.Equal(t, d.Kind, m.Kind)
		assert.Equal(t, d.ID, m.ID)
		if d.Kind != messages.KindResponse {
			assert.Equal(t, d.Method, m.Method)
		}
	}
	assert.Equal(t, messages.MethodPing, first.sent[len(first.sent)-1].Method)
	first.mu.Unlock()

	// Session expiry is a lost connection: the session re-initializes on a
	// new connection by itself.
	restarts := h.Shared().Stats().Restarts.Load()
	first.failNext <- transport.ErrSessionExpired
	deadline := time.After(10 * time.Second)
	for h.Shared().Stats().Restarts.Load() == restarts || h.Shared().State() != mcpstate.StateReady {
		select {
		case <-h.Shared().StateChanged():
		case <-deadline:
			t.Fatalf("no re-initialize after expiry: %v", h.Shared().State())
		}
	}
	require.NoError(t, call())
	mu.Lock()
	assert.Len(t, conns, 2)
	for _, c := range conns {
		assert.Zero(t, c.reads.Load(), "the session must not read a push connection")
	}
	mu.Unlock()
}
