package gateway

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine"
)

// member is one session of a server's pool.
type member struct {
	srv   *upstream
	index int
	s     upstreamSession

	load  atomic.Int64  // requests in flight through the gateway
	calls atomic.Uint64 // requests sent, for /healthz and tests

	mu      sync.Mutex
	flights map[*flight]struct{}
	seq     uint64
}

// flight is one request in flight on a member, kept so that a request the
// server sends meanwhile (sampling, elicitation, roots) can be attributed
// to the gateway client that caused it.
type flight struct {
	seq   uint64
	front *frontSession // nil for the routing protocol, which cannot take requests
	out   *frontStream  // the answer stream of the front request, nil for a JSON answer
}

func (m *member) begin(front *frontSession, out *frontStream) *flight {
	m.load.Add(1)
	m.calls.Add(1)
	m.mu.Lock()
	m.seq++
	f := &flight{seq: m.seq, front: front, out: out}
	m.flights[f] = struct{}{}
	m.mu.Unlock()
	return f
}

func (m *member) end(f *flight) {
	m.mu.Lock()
	delete(m.flights, f)
	m.mu.Unlock()
	m.load.Add(-1)
}

// busyForOthers reports whether requests of anyone but front are in
// flight on m.
func (m *member) busyForOthers(front *frontSession) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for f := range m.flights {
		if f.front == nil || f.front != front {
			return true
		}
	}
	return false
}

// attribute finds the flight a server request belongs to: the latest of
// the one gateway client with requests in flight on m. With none, or with
// requests of several clients in flight, the server's request cannot be
// attributed: forwarding it to a guess could hand one client's data to
// another.
func (m *member) attribute() (*flight, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var latest *flight
	for f := range m.flights {
		if f.front == nil {
			return nil, "a routing-protocol request is in flight on this server session; its client cannot take requests"
		}
		if latest != nil && latest.front != f.front {
			return nil, "requests of several gateway clients are in flight on this server session"
		}
		if latest == nil || f.seq > latest.seq {
			latest = f
		}
	}
	if latest == nil {
		return nil, "no gateway client request is in flight on this server session"
	}
	return latest, ""
}

// pool is a server's sessions and the choice among them.
type pool struct {
	members []*member
	next    atomic.Uint64 // where the search starts, so that ties rotate

	mu      sync.Mutex
	changed chan struct{} // closed at the next state change of any member
}

func newPool() *pool { return &pool{changed: make(chan struct{})} }

// stateChanged wakes the requests waiting for a ready member.
func (p *pool) stateChanged() {
	p.mu.Lock()
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *pool) changedCh() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// pick returns the ready member with the fewest requests in flight; a
// member in backoff or still connecting is skipped. For a client that can
// take server requests, members busy with other clients count as more
// loaded than any other, so that what a server asks stays attributable.
func (p *pool) pick(exclusive *frontSession) *member {
	n := len(p.members)
	start := int(p.next.Add(1) % uint64(n))
	var best *member
	var bestScore int64
	for i := range n {
		m := p.members[(start+i)%n]
		if m.s.State() != mcpengine.StateReady {
			continue
		}
		score := m.load.Load()
		if exclusive != nil && m.busyForOthers(exclusive) {
			score += 1 << 32
		}
		if best == nil || score < bestScore {
			best, bestScore = m, score
		}
	}
	return best
}

// reconnecting reports whether some member may become ready soon: it is
// connecting or initializing rather than waiting out a backoff.
func (p *pool) reconnecting() bool {
	for _, m := range p.members {
		switch m.s.State() {
		case mcpengine.StateConnecting, mcpengine.StateInitializing:
			return true
		}
	}
	return false
}

// ready counts the ready members.
func (p *pool) ready() int {
	n := 0
	for _, m := range p.members {
		if m.s.State() == mcpengine.StateReady {
			n++
		}
	}
	return n
}

// acquire picks a ready member, waiting up to wait while members are
// (re)connecting. It returns nil when none became ready: the server is
// down.
func (p *pool) acquire(ctx context.Context, wait time.Duration, exclusive *frontSession) *member {
	var deadline <-chan time.Time
	for {
		changed := p.changedCh()
		if m := p.pick(exclusive); m != nil {
			return m
		}
		if !p.reconnecting() {
			return nil
		}
		if deadline == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-changed:
		case <-deadline:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
