package actors

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors of the actor. The root package declares its own and
// translates these at its boundary; inside the engine, match with errors.Is.
var (
	// ErrConnectionLost: the connection died while the request was in
	// flight; whether the server ran it is unknown.
	ErrConnectionLost error = &sentinel{"mcpengine: connection lost", "connection_lost"}
	// ErrSessionClosed: the session was closed (by Close or permanently).
	ErrSessionClosed error = &sentinel{"mcpengine: session closed", "session_closed"}
	// ErrTimeout: no response before the request's deadline.
	ErrTimeout error = &sentinel{"mcpengine: request timed out", "timeout"}
	// ErrTooManyInFlight: the session's in-flight cap is reached.
	ErrTooManyInFlight error = &sentinel{"mcpengine: too many requests in flight", "too_many_in_flight"}
	// ErrQueueFull: the session is not ready and its wait queue is full.
	ErrQueueFull error = &sentinel{"mcpengine: wait queue full", "queue_full"}
	// ErrNotReady: the session is not ready and the caller asked to fail fast.
	ErrNotReady error = &sentinel{"mcpengine: session not ready", "not_ready"}
	// ErrCapabilityNotSupported: the server did not declare the capability
	// the method needs.
	ErrCapabilityNotSupported error = &sentinel{"mcpengine: capability not supported by server", "capability_not_supported"}
	// ErrVersionMismatch: the server answered a protocol version the engine
	// does not speak (or not the pinned one in strict mode).
	ErrVersionMismatch error = &sentinel{"mcpengine: protocol version mismatch", "version_mismatch"}
	// ErrProtocol: the server answered the request with a message that
	// breaks JSON-RPC; whether the server ran the request is unknown.
	ErrProtocol error = &sentinel{"mcpengine: protocol error", "protocol_error"}
	// ErrUnreachable: the session's first connection never reached its
	// server (see ConnectError).
	ErrUnreachable error = &sentinel{"mcpengine: server unreachable", "unreachable"}
)

// sentinel is the type of the sentinel errors: a message, and the class
// telemetry reports as error.type.
type sentinel struct{ msg, kind string }

func (e *sentinel) Error() string { return e.msg }

// ErrorType is the error's error.type in telemetry.
func (e *sentinel) ErrorType() string { return e.kind }

// ConnectionLostError is returned to every request pending when the
// connection failed. Cause is what killed the connection.
type ConnectionLostError struct {
	Cause error
}

func (e *ConnectionLostError) Error() string {
	return fmt.Sprintf("mcpengine: connection lost: %v", e.Cause)
}
func (e *ConnectionLostError) Unwrap() []error { return []error{ErrConnectionLost, e.Cause} }

// TimeoutError reports a request that got no answer in time. Whichever
// clock ran out first, the request timeout or the caller's ctx deadline,
// the caller gets this one error, and it matches both ErrTimeout and
// context.DeadlineExceeded with errors.Is: code that checks either never
// depends on which timer fired first.
type TimeoutError struct {
	Method string
	After  time.Duration
	// CallerDeadline is set when the caller's own deadline (its ctx) ran
	// out before the request timeout did.
	CallerDeadline bool
}

func (e *TimeoutError) Error() string {
	switch {
	case !e.CallerDeadline:
		return fmt.Sprintf("mcpengine: %s timed out after %v", e.Method, e.After)
	case e.After > 0:
		return fmt.Sprintf("mcpengine: %s got no answer before the caller's deadline (%v after it was sent)", e.Method, e.After)
	}
	return fmt.Sprintf("mcpengine: %s got no answer before the caller's deadline", e.Method)
}
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}

// Timeout lets net-style checks (err.(interface{ Timeout() bool })) work.
func (e *TimeoutError) Timeout() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *TimeoutError) ErrorType() string { return "timeout" }

// CapabilityError reports a request the server's capabilities rule out.
type CapabilityError struct {
	Method     string
	Capability string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("mcpengine: server does not support %s (capability %q not declared)", e.Method, e.Capability)
}
func (e *CapabilityError) Is(target error) bool { return target == ErrCapabilityNotSupported }

// ErrorType is the error's error.type in telemetry.
func (e *CapabilityError) ErrorType() string { return "capability_not_supported" }

// VersionMismatchError reports a server answering a protocol version the
// engine cannot speak. It is retried under the restart budget, then the
// session closes with it.
type VersionMismatchError struct {
	Offered  string
	Answered string
}

func (e *VersionMismatchError) Error() string {
	return fmt.Sprintf("mcpengine: protocol version mismatch: offered %s, server answered %q", e.Offered, e.Answered)
}
func (e *VersionMismatchError) Is(target error) bool { return target == ErrVersionMismatch }

// Budgeted marks the error for supervisor.Classify.
func (e *VersionMismatchError) Budgeted() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *VersionMismatchError) ErrorType() string { return "version_mismatch" }

// ProtocolError fails a request whose answer arrived broken but with a
// recognisable id: both result and error or neither, a jsonrpc other than
// "2.0", a malformed error object, or the request's number id sent back as
// a string. The caller learns at once what was wrong instead of waiting
// for its timeout; the frame is also counted in Stats.InvalidFrames.
type ProtocolError struct {
	Method string
	// Reason says what was wrong with the answer.
	Reason string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("mcpengine: %s: the server's answer breaks JSON-RPC: %s", e.Method, e.Reason)
}
func (e *ProtocolError) Is(target error) bool { return target == ErrProtocol }

// ErrorType is the error's error.type in telemetry.
func (e *ProtocolError) ErrorType() string { return "protocol_error" }

// ClosedError is returned by every call after a session closed for good;
// Cause says why (nil when Close was called).
type ClosedError struct {
	Cause error
}

func (e *ClosedError) Error() string {
	if e.Cause == nil {
		return ErrSessionClosed.Error()
	}
	return fmt.Sprintf("%v: %v", ErrSessionClosed, e.Cause)
}
func (e *ClosedError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrSessionClosed}
	}
	return []error{ErrSessionClosed, e.Cause}
}

// SafeToRetry reports whether err guarantees the request never reached the
// server (it was refused before the writer had it), so retrying it cannot
// run it twice.
func SafeToRetry(err error) bool {
	switch {
	case errors.Is(err, ErrNotReady), errors.Is(err, ErrQueueFull), errors.Is(err, ErrTooManyInFlight),
		errors.Is(err, ErrCapabilityNotSupported):
		return true
	}
	var s interface{ SafeToRetry() bool }
	return errors.As(err, &s) && s.SafeToRetry()
}
