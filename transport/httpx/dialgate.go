package httpx

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/transport"
)

// Bounds of the spacing DialGate puts between dials while the process is
// out of descriptors.
const (
	// MinDialSpacing is the spacing after the first local failure.
	MinDialSpacing = 2 * time.Millisecond
	// MaxDialSpacing caps it: at least this many dials a second still go
	// out, so one freed descriptor is noticed soon.
	MaxDialSpacing = 100 * time.Millisecond
)

// DialGate slows dials down while the process is out of local resources.
// A dial that fails with EMFILE, ENFILE, ENOBUFS or ENOMEM spaces the
// dials that follow MinDialSpacing apart, and the spacing doubles (up to
// MaxDialSpacing) for each spacing period in which dials keep failing
// (not for each failure: a burst of dials that failed together is one
// piece of news); the next dial that succeeds lifts it, releasing every
// dial waiting. Without failures it costs one uncontended mutex per dial.
// Share one gate between every client of an engine: the descriptor limit
// is the process's.
//
// The gate also knows the dials under way and the connections they made,
// so that its owner can end them all when it closes (Close): an
// http.Transport finishes a dial its request no longer waits for, for the
// next request's sake, and that socket would outlive the engine; and
// net/http closes only idle connections on request (CloseIdleConnections),
// so a connection whose server stopped reading or answering, or that a
// GOAWAY left draining, would keep its goroutines until the server let go.
type DialGate struct {
	mu      sync.Mutex
	spacing time.Duration // 0: dials go at once
	next    time.Time     // the earliest start of the next dial while spaced
	raised  time.Time     // when spacing last grew
	clear   chan struct{} // closed when a dial succeeds while spaced

	dialing int                     // dials under way
	closed  bool                    // Close was called: no dial starts
	stop    context.Context         // done once Close was called: dials under way end
	cancel  context.CancelFunc      // ends stop
	drained chan struct{}           // closed when closed and dialing is 0
	conns   map[*gatedConn]struct{} // connections dialed and not yet closed

	failures atomic.Uint64
}

// ErrDialGateClosed is the error of a dial asked for after Close.
var ErrDialGateClosed = errors.New("mcpengine/httpx: the engine is closed")

// enter counts a dial starting, or refuses it after Close.
func (g *DialGate) enter() (stop context.Context, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, false
	}
	if g.stop == nil {
		g.stop, g.cancel = context.WithCancel(context.Background())
	}
	g.dialing++
	return g.stop, true
}

func (g *DialGate) exit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dialing--
	if g.closed && g.dialing == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
}

// Close refuses new dials, ends those under way, closes every connection
// the gate's dials made, and waits for the dials to return, at most until
// ctx ends. Whatever ran on those connections (net/http's read loops and
// writers) ends with them.
func (g *DialGate) Close(ctx context.Context) error {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		if g.cancel != nil {
			g.cancel()
		}
	}
	conns := g.conns
	g.conns = nil
	g.mu.Unlock()
	for c := range conns {
		_ = c.Conn.Close()
	}
	g.mu.Lock()
	if g.dialing == 0 {
		g.mu.Unlock()
		return nil
	}
	if g.drained == nil {
		g.drained = make(chan struct{})
	}
	drained := g.drained
	g.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Failures counts the dials that failed for want of local resources.
func (g *DialGate) Failures() uint64 { return g.failures.Load() }

// Wrap returns dial behind the gate.
func (g *DialGate) Wrap(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		stop, ok := g.enter()
		if !ok {
			return nil, ErrDialGateClosed
		}
		defer g.exit()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(stop, cancel)() // no goroutine unless the gate closes
		if err := g.wait(ctx); err != nil {
			return nil, err
		}
		c, err := dial(ctx, network, addr)
		g.done(err)
		if err != nil {
			return nil, err
		}
		if gc, ok := g.track(c); ok {
			return gc, nil
		}
		// Connected as the gate closed: nobody will use it.
		_ = c.Close()
		return nil, ErrDialGateClosed
	}
}

// gatedConn is a connection the gate's dial made: it leaves the gate's
// set when closed.
type gatedConn struct {
	net.Conn
	g    *DialGate
	once sync.Once
}

func (c *gatedConn) Close() error {
	c.once.Do(func() {
		c.g.mu.Lock()
		delete(c.g.conns, c)
		c.g.mu.Unlock()
	})
	return c.Conn.Close()
}

// track adds c to the gate's connections, or reports false once the gate
// closed.
func (g *DialGate) track(c net.Conn) (*gatedConn, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, false
	}
	if g.conns == nil {
		g.conns = map[*gatedConn]struct{}{}
	}
	gc := &gatedConn{Conn: c, g: g}
	g.conns[gc] = struct{}{}
	return gc, true
}

// Conns counts the connections the gate's dials made that are still open.
func (g *DialGate) Conns() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// wait holds a dial while the gate is spaced until spacing has passed
// since the last dial started, a dial succeeds, or ctx ends. Waiters that
// lose the race for a slot wait for the next one, whatever the spacing
// has grown to meanwhile.
func (g *DialGate) wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.spacing == 0 {
			g.mu.Unlock()
			return nil
		}
		now := time.Now()
		if !g.next.After(now) {
			g.next = now.Add(g.spacing)
			g.mu.Unlock()
			return nil
		}
		d, clear := g.next.Sub(now), g.clear
		g.mu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-clear:
			t.Stop()
			return nil
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// done records a dial's outcome.
func (g *DialGate) done(err error) {
	_, local := transport.LocalResources(err)
	if local {
		g.failures.Add(1)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	switch {
	case local && g.spacing == 0:
		g.spacing, g.raised = MinDialSpacing, now
		g.next = now.Add(g.spacing)
		g.clear = make(chan struct{})
	case local && now.Sub(g.raised) >= g.spacing:
		g.spacing, g.raised = min(2*g.spacing, MaxDialSpacing), now
	case err == nil && g.spacing != 0:
		g.spacing = 0
		close(g.clear)
		g.clear = nil
	}
}
