package demoserver

import (
	"context"
	"sync"
	"sync/atomic"
)

// Stats is a snapshot of a Server's counters, summed over all sessions.
type Stats struct {
	Sessions       int64 // Serve calls started
	ActiveSessions int64 // Serve calls not yet returned

	Requests      int64            // requests received (all methods, batch members included)
	Methods       map[string]int64 // requests per method name (unknown methods included)
	ToolCalls     map[string]int64 // tools/call per tool name (known tools only)
	Notifications int64            // notifications received
	Responses     int64            // client responses to server-initiated requests, routed or not

	Initialized      int64 // notifications/initialized received
	Cancellations    int64 // notifications/cancelled received
	CancelledCalls   int64 // in-flight requests stopped by a cancellation (no response sent)
	RootsListChanged int64 // notifications/roots/list_changed received

	InvalidMessages     int64 // received frames or batch members that were not valid JSON-RPC
	UnexpectedResponses int64 // client responses matching no pending server request
	ServerRequests      int64 // requests the server sent (sampling, elicitation, roots)
	GarbageWritten      int64 // garbage lines written by the GarbageEvery fault
	Batches             int64 // batch frames received
}

// stats holds the live counters. The per-method and per-tool counters for
// known names are created up front, so the hot path does one map read and
// one atomic add without locking.
type stats struct {
	sessions, active                                   atomic.Int64
	requests, notifications, responses                 atomic.Int64
	initialized, cancellations, cancelledCalls, rootsC atomic.Int64
	invalid, unexpected, serverRequests, garbage       atomic.Int64
	batches                                            atomic.Int64

	methods map[string]*atomic.Int64 // read-only after New
	tools   map[string]*atomic.Int64 // read-only after New

	otherMu sync.Mutex
	other   map[string]int64 // methods not in methods

	// Await support: waiters > 0 makes notify broadcast by closing changed.
	waiters   atomic.Int64
	changedMu sync.Mutex
	changed   chan struct{}
}

func newStats(methods, tools []string) *stats {
	st := &stats{
		methods: make(map[string]*atomic.Int64, len(methods)),
		tools:   make(map[string]*atomic.Int64, len(tools)),
		other:   make(map[string]int64),
		changed: make(chan struct{}),
	}
	for _, m := range methods {
		st.methods[m] = new(atomic.Int64)
	}
	for _, t := range tools {
		st.tools[t] = new(atomic.Int64)
	}
	return st
}

func (st *stats) countMethod(m string) {
	st.requests.Add(1)
	if c, ok := st.methods[m]; ok {
		c.Add(1)
	} else {
		st.otherMu.Lock()
		st.other[m]++
		st.otherMu.Unlock()
	}
	st.notify()
}

func (st *stats) countTool(name string) {
	if c, ok := st.tools[name]; ok {
		c.Add(1)
		st.notify()
	}
}

// add increments c and wakes Await callers.
func (st *stats) add(c *atomic.Int64) {
	c.Add(1)
	st.notify()
}

// notify wakes Await callers if there are any; it costs one atomic load
// otherwise.
func (st *stats) notify() {
	if st.waiters.Load() == 0 {
		return
	}
	st.changedMu.Lock()
	close(st.changed)
	st.changed = make(chan struct{})
	st.changedMu.Unlock()
}

func (st *stats) snapshot() Stats {
	s := Stats{
		Sessions:            st.sessions.Load(),
		ActiveSessions:      st.active.Load(),
		Requests:            st.requests.Load(),
		Methods:             make(map[string]int64),
		ToolCalls:           make(map[string]int64),
		Notifications:       st.notifications.Load(),
		Responses:           st.responses.Load(),
		Initialized:         st.initialized.Load(),
		Cancellations:       st.cancellations.Load(),
		CancelledCalls:      st.cancelledCalls.Load(),
		RootsListChanged:    st.rootsC.Load(),
		InvalidMessages:     st.invalid.Load(),
		UnexpectedResponses: st.unexpected.Load(),
		ServerRequests:      st.serverRequests.Load(),
		GarbageWritten:      st.garbage.Load(),
		Batches:             st.batches.Load(),
	}
	for m, c := range st.methods {
		if n := c.Load(); n > 0 {
			s.Methods[m] = n
		}
	}
	st.otherMu.Lock()
	for m, n := range st.other {
		s.Methods[m] = n
	}
	st.otherMu.Unlock()
	for t, c := range st.tools {
		if n := c.Load(); n > 0 {
			s.ToolCalls[t] = n
		}
	}
	return s
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats { return s.stats.snapshot() }

// Await blocks until cond holds for the server's counters or ctx ends, and
// returns ctx's error in the latter case. It re-checks cond whenever a
// counter changes, so tests can wait for an effect (a cancellation being
// honoured, a notification arriving, a session ending) without sleeping.
func (s *Server) Await(ctx context.Context, cond func(Stats) bool) error {
	st := s.stats
	st.waiters.Add(1)
	defer st.waiters.Add(-1)
	for {
		st.changedMu.Lock()
		ch := st.changed
		st.changedMu.Unlock()
		if cond(st.snapshot()) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
