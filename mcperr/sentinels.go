package mcperr

import "errors"

// Sentinel errors; match with errors.Is. Each is also reachable through
// the typed errors of this package with errors.As.
var (
	// ErrConnectionLost: the connection died while the request was in
	// flight; whether the server ran it is unknown (ConnectionLostError).
	ErrConnectionLost error = &sentinel{"mcpengine: connection lost", "connection_lost"}
	// ErrSessionClosed: the session was closed, by Close or for good
	// after a permanent failure (ClosedError).
	ErrSessionClosed error = &sentinel{"mcpengine: session closed", "session_closed"}
	// ErrTimeout: no answer before the request's deadline (TimeoutError,
	// which matches context.DeadlineExceeded as well).
	ErrTimeout error = &sentinel{"mcpengine: request timed out", "timeout"}
	// ErrTooManyInFlight: the session's in-flight cap (Config.MaxInFlight)
	// is reached. The request was not sent.
	ErrTooManyInFlight error = &sentinel{"mcpengine: too many requests in flight", "too_many_in_flight"}
	// ErrQueueFull: the session is not ready and its wait queue
	// (Config.QueueLimit) is full. The request was not sent.
	ErrQueueFull error = &sentinel{"mcpengine: wait queue full", "queue_full"}
	// ErrNotReady: the session is not ready and the call asked to fail
	// fast (FailFast). The request was not sent.
	ErrNotReady error = &sentinel{"mcpengine: session not ready", "not_ready"}
	// ErrCapabilityNotSupported: the server did not declare the
	// capability the method needs (CapabilityError). Not sent.
	ErrCapabilityNotSupported error = &sentinel{"mcpengine: capability not supported by server", "capability_not_supported"}
	// ErrSubscriptionDeclined: a 2026-07-28 server acknowledged a listen
	// whose filter leaves out the URI Subscribe asked for (or ended the
	// listen before acknowledging it). The session is not subscribed.
	ErrSubscriptionDeclined error = &sentinel{"mcpengine: the server declined the subscription", "subscription_declined"}
	// ErrVersionMismatch: the server answered a protocol version the
	// engine does not speak, or not the pinned one (VersionMismatchError,
	// NoCommonVersionError, NotModernError).
	ErrVersionMismatch error = &sentinel{"mcpengine: protocol version mismatch", "version_mismatch"}
	// ErrProtocol: the server answered the request with a message that
	// breaks JSON-RPC (ProtocolError); whether it ran the request is
	// unknown.
	ErrProtocol error = &sentinel{"mcpengine: protocol error", "protocol_error"}
	// ErrUnreachable: the session's first connection never reached its
	// server (ConnectError).
	ErrUnreachable error = &sentinel{"mcpengine: server unreachable", "unreachable"}
	// ErrDuplicateName: Open or Connect with the name of a session the
	// engine already holds.
	ErrDuplicateName error = &sentinel{"mcpengine: a session with this name already exists", "duplicate_name"}
	// ErrUnknownSession: Engine.Session found no session of that name.
	ErrUnknownSession error = &sentinel{"mcpengine: no session with this name", "unknown_session"}
	// ErrEngineClosed is returned by Connect and Open after Close.
	ErrEngineClosed error = &sentinel{"mcpengine: engine closed", "engine_closed"}
	// ErrNotInProtocolVersion matches a request refused before sending
	// because its method does not exist in the negotiated version (ping,
	// resources/subscribe, logging/setLevel in 2026-07-28;
	// MethodNotInVersionError).
	ErrNotInProtocolVersion error = &sentinel{"mcpengine: method does not exist in the negotiated protocol version", "not_in_protocol_version"}
	// ErrInputRequired matches a request a 2026-07-28 server still
	// answered with input_required after MaxInputRounds rounds of input
	// (InputRequiredError).
	ErrInputRequired error = &sentinel{"mcpengine: the server still requires input after the round limit", "input_required"}
	// ErrNoInputHandler matches an InputRequestError for an input request
	// the engine has no handler for (no Sampling, Elicitation, Roots or
	// RootsHandler installed for it, or a method that is not an input
	// request).
	ErrNoInputHandler error = &sentinel{"mcpengine: no handler installed for this input request", "input_request"}
)

// sentinel is the type of the sentinel errors: a message, and the class
// telemetry and the load generator report as error.type.
type sentinel struct{ msg, kind string }

func (e *sentinel) Error() string { return e.msg }

// ErrorType is the error's class (error.type in telemetry).
func (e *sentinel) ErrorType() string { return e.kind }

// SafeToRetry reports whether err guarantees that the request never left
// the engine, so sending it again cannot run it twice on the server: it
// was refused before the writer had it (ErrNotReady, ErrQueueFull,
// ErrTooManyInFlight, a capability or protocol version that rules the
// method out) or the server was never reached (ConnectError).
func SafeToRetry(err error) bool {
	switch {
	case errors.Is(err, ErrNotReady), errors.Is(err, ErrQueueFull), errors.Is(err, ErrTooManyInFlight),
		errors.Is(err, ErrCapabilityNotSupported):
		return true
	}
	var s interface{ SafeToRetry() bool }
	return errors.As(err, &s) && s.SafeToRetry()
}
