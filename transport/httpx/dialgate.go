package httpx

import (
	"context"
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
type DialGate struct {
	mu      sync.Mutex
	spacing time.Duration // 0: dials go at once
	next    time.Time     // the earliest start of the next dial while spaced
	raised  time.Time     // when spacing last grew
	clear   chan struct{} // closed when a dial succeeds while spaced

	failures atomic.Uint64
}

// Failures counts the dials that failed for want of local resources.
func (g *DialGate) Failures() uint64 { return g.failures.Load() }

// Wrap returns dial behind the gate.
func (g *DialGate) Wrap(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := g.wait(ctx); err != nil {
			return nil, err
		}
		c, err := dial(ctx, network, addr)
		g.done(err)
		return c, err
	}
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
