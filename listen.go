package mcpengine

import "github.com/mcpengine/mcpengine/actors"

// ListenStatus is where a 2026-07-28 session's subscriptions/listen
// stands: the phase, the filter asked for, the filter the server
// acknowledged, how many listens were opened, and why the last one
// dropped or failed.
type ListenStatus = actors.ListenStatus

// ListenPhase is the phase of a session's listen.
type ListenPhase = actors.ListenPhase

// The listen phases. ListenEnded is a graceful end (the server answered
// the request); ListenDropped a stream lost without an answer (re-opened
// with backoff, or after the reconnect).
const (
	ListenNone    = actors.ListenNone
	ListenOpening = actors.ListenOpening
	ListenOpen    = actors.ListenOpen
	ListenEnded   = actors.ListenEnded
	ListenDropped = actors.ListenDropped
	ListenFailed  = actors.ListenFailed
)

// Listen returns the status of the session's subscriptions/listen
// (2026-07-28; always ListenNone in the handshake era, which listens on
// its GET stream) and a channel closed at its next change.
//
// The listen is opened only when the embedder asked for something: an
// OnNotification handler (for the list changes the server declares) or a
// resource subscription (Subscribe). Its notifications reach
// OnNotification as in the handshake era.
func (s *Session) Listen() (ListenStatus, <-chan struct{}) { return s.sh.ListenStatus() }
