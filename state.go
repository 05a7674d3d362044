package mcpengine

import "github.com/mcpengine/mcpengine/mcpstate"

// State is a session's lifecycle state (see package mcpstate for its
// diagram): connecting, initializing, ready, backoff, closed.
type State = mcpstate.State

// The session states (see package mcpstate).
const (
	// StateConnecting: dialing the transport (starting the subprocess).
	StateConnecting = mcpstate.StateConnecting
	// StateInitializing: connected, handshake under way.
	StateInitializing = mcpstate.StateInitializing
	// StateReady: requests flow.
	StateReady = mcpstate.StateReady
	// StateBackoff: the connection failed; waiting before reconnecting.
	StateBackoff = mcpstate.StateBackoff
	// StateClosed: closed for good (Close called, or a permanent failure).
	StateClosed = mcpstate.StateClosed
)

// StateChange is one transition, delivered to WatchState callbacks in
// order (see package mcpstate for its fields).
type StateChange = mcpstate.StateChange
