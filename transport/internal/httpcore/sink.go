package httpcore

import (
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/transport"
)

// Sink is the gate between a connection's goroutines and the session's
// transport.RequestConn callbacks. It makes the contract hold whatever the
// goroutines do:
//
//   - frames that arrive before Start are kept and handed over, in order,
//     when Start is called (the legacy transport reads its stream from
//     Dial on);
//   - fail is called at most once, and no deliver starts after it;
//   - after Close neither is called.
//
// deliver may run on several goroutines at once. Neither callback may call
// the connection's Close synchronously: Close waits for the delivering
// goroutines.
type Sink struct {
	mu      sync.RWMutex // deliveries hold it shared; Start, Fail and Close exclusively
	deliver func(*transport.Inbound)
	fail    func(error)
	pending []*transport.Inbound // frames before Start, cloned
	state   sinkState
	err     error // the failure, once failed
	told    bool  // fail has been called with err

	// failure mirrors err without the lock: Err is called by Send,
	// which a deliver callback may reach while this goroutine holds the
	// read lock (and Go's RWMutex must not be read-locked recursively).
	failure atomic.Pointer[error]
}

type sinkState uint8

const (
	sinkOpen sinkState = iota
	sinkFailed
	sinkClosed
)

// Start installs the callbacks, delivers what arrived before, and reports a
// failure that happened before. Only the first call has an effect.
func (s *Sink) Start(deliver func(*transport.Inbound), fail func(error)) {
	s.mu.Lock()
	if s.deliver != nil || s.state == sinkClosed {
		s.mu.Unlock()
		return
	}
	s.deliver, s.fail = deliver, fail
	pending := s.pending
	s.pending = nil
	// Delivered under the exclusive lock so that frames arriving meanwhile
	// queue behind these instead of overtaking them.
	for _, f := range pending {
		deliver(f)
	}
	var tell error
	if s.state == sinkFailed && !s.told {
		s.told, tell = true, s.err
	}
	s.mu.Unlock()
	if tell != nil {
		fail(tell)
	}
}

// Deliver hands one decoded frame to the session (or keeps a copy until
// Start: in may be reused once Deliver returns). It reports false when the
// sink no longer delivers (failed or closed).
func (s *Sink) Deliver(in *transport.Inbound) bool {
	s.mu.RLock()
	if s.state != sinkOpen {
		s.mu.RUnlock()
		return false
	}
	if d := s.deliver; d != nil {
		d(in)
		s.mu.RUnlock()
		return true
	}
	s.mu.RUnlock()

	s.mu.Lock()
	switch {
	case s.state != sinkOpen:
		s.mu.Unlock()
		return false
	case s.deliver == nil:
		s.pending = append(s.pending, in.Clone())
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	return s.Deliver(in) // Start ran in between
}

// Fail reports err to the session unless the sink already failed or
// closed; it waits for deliveries in progress so that none overlaps the
// failure. It reports whether err was the first failure.
func (s *Sink) Fail(err error) bool {
	s.mu.Lock()
	if s.state != sinkOpen {
		s.mu.Unlock()
		return false
	}
	s.state, s.err = sinkFailed, err
	s.failure.Store(&err)
	fail := s.fail
	if fail != nil {
		s.told = true
	}
	s.mu.Unlock()
	if fail != nil {
		fail(err)
	}
	return true
}

// Err returns the failure passed to Fail, or nil.
func (s *Sink) Err() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// Close stops all further callbacks, waiting for deliveries in progress.
func (s *Sink) Close() {
	s.mu.Lock()
	s.state = sinkClosed
	s.pending = nil
	s.mu.Unlock()
}
