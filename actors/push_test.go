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
}

func (p *pushConn) ReadFrame() ([]byte, error) {
	p.reads.Add(1)
	return nil, errors.New("push connection: ReadFrame must not be called")
}

func (p *pushConn) Start(deliver func([]byte), fail func(error)) {
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
				deliver(f)
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
