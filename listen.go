package mcpengine

import (
	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
)

// ListenPhase is where a 2026-07-28 session's subscriptions/listen
// stands (see package mcpstate for each phase's doc).
type ListenPhase = mcpstate.ListenPhase

// The listen phases.
const (
	// ListenNone: no listen (handshake era, nothing asked for, not ready).
	ListenNone = mcpstate.ListenNone
	// ListenOpening: the request is sent, not yet acknowledged.
	ListenOpening = mcpstate.ListenOpening
	// ListenOpen: the server acknowledged ListenStatus.Acknowledged.
	ListenOpen = mcpstate.ListenOpen
	// ListenEnded: the server ended the listen gracefully.
	ListenEnded = mcpstate.ListenEnded
	// ListenDropped: the stream was lost without an answer; re-opened.
	ListenDropped = mcpstate.ListenDropped
	// ListenFailed: the server refused the request; not retried.
	ListenFailed = mcpstate.ListenFailed
)

// ListenStatus is a snapshot of a 2026-07-28 session's
// subscriptions/listen (see package mcpstate for its fields).
type ListenStatus = mcpstate.ListenStatus

// Listen returns the status of the session's subscriptions/listen
// (2026-07-28; always ListenNone in the handshake era, which listens on
// its GET stream) and a channel closed at its next change.
//
// The listen is opened only when the embedder asked for something: an
// OnNotification handler (for the list changes the server declares) or a
// resource subscription (Subscribe). Its notifications reach
// OnNotification as in the handshake era.
func (s *Session) Listen() (ListenStatus, <-chan struct{}) {
	return s.sh.ListenStatus()
}

// Notification is a server notification (list_changed,
// resources/updated, message, cancelled …) as delivered to
// OnNotification callbacks.
type Notification struct {
	Method string
	Params messages.RawMessage
}

// publicNotification is a field-for-field copy (no allocation).
func publicNotification(n actors.Notification) Notification {
	return Notification{Method: n.Method, Params: n.Params}
}
