package mcpstate

import "github.com/mcpengine/mcpengine/messages"

// ListenPhase is where a 2026-07-28 session's subscriptions/listen
// stands.
type ListenPhase int

// The listen phases.
const (
	// ListenNone: no listen (handshake era, nothing asked for, not ready).
	ListenNone ListenPhase = iota
	// ListenOpening: the request is sent, not yet acknowledged.
	ListenOpening
	// ListenOpen: the server acknowledged ListenStatus.Acknowledged.
	ListenOpen
	// ListenEnded: the server ended the listen gracefully (it answered
	// the request); not re-opened until the filter changes or the next
	// connection.
	ListenEnded
	// ListenDropped: the stream was lost without an answer (Err says
	// how); it is re-opened with backoff, or after the reconnect when the
	// connection was lost.
	ListenDropped
	// ListenFailed: the server refused the request (Err, a JSON-RPC
	// error); not retried until the filter changes or a reconnect.
	ListenFailed
)

func (p ListenPhase) String() string {
	switch p {
	case ListenOpening:
		return "opening"
	case ListenOpen:
		return "open"
	case ListenEnded:
		return "ended"
	case ListenDropped:
		return "dropped"
	case ListenFailed:
		return "failed"
	}
	return "none"
}

// ListenStatus is a snapshot of a 2026-07-28 session's
// subscriptions/listen.
type ListenStatus struct {
	Phase ListenPhase
	// Requested is the filter the engine asked for.
	Requested messages.SubscriptionFilter
	// Acknowledged is what the server agreed to honor (Phase ListenOpen;
	// kept, for the record, once the stream ended).
	Acknowledged *messages.SubscriptionFilter
	// Opened counts the listen requests sent over the session's life,
	// Drops the streams that ended without a result.
	Opened, Drops int
	// Err is why the stream dropped or failed.
	Err error
}
