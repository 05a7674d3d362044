package mcpstate

import "time"

// State is a session's lifecycle state:
//
//	connecting ──► initializing ──► ready ──► closed
//	   │  ▲               │            │
//	   │  └── backoff ◄───┴────────────┘
//	   └──────────────────┴──► closed
type State int32

// The session states.
const (
	// StateConnecting: dialing the transport (starting the subprocess).
	StateConnecting State = iota
	// StateInitializing: connected, handshake under way.
	StateInitializing
	// StateReady: requests flow.
	StateReady
	// StateBackoff: the connection failed; waiting before reconnecting.
	StateBackoff
	// StateClosed: closed for good (Close called, or a permanent failure).
	StateClosed
)

func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateInitializing:
		return "initializing"
	case StateReady:
		return "ready"
	case StateBackoff:
		return "backoff"
	case StateClosed:
		return "closed"
	}
	return "unknown"
}

// StateChange is one transition, delivered to WatchState callbacks in
// order.
type StateChange struct {
	From, To State
	// Err is why the session left ready or initializing (nil otherwise).
	Err error
	// Attempt counts reconnect attempts in a row: since the last
	// connection that stayed ready for the backoff policy's ResetAfter (a
	// connection that dies sooner does not start the count over).
	Attempt int
	// At is when the session changed state (callbacks run later, on the
	// session's dispatcher).
	At time.Time
}
