package mcperr

import (
	"context"
	"fmt"
	"time"
)

// Errors of one request: refused before sending, or answered badly or too
// late.

// TimeoutError reports a request that got no answer in time. Whichever
// clock ran out first, the request timeout or the caller's ctx deadline,
// the caller gets this one error, and it matches both ErrTimeout and
// context.DeadlineExceeded with errors.Is: code that checks either never
// depends on which timer fired first.
type TimeoutError struct {
	Method string
	// After is how long after sending the request gave up (0 when the
	// caller's deadline ended it before it was sent).
	After time.Duration
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

// Is matches ErrTimeout and context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}

// Timeout lets net-style checks (err.(interface{ Timeout() bool })) work.
func (e *TimeoutError) Timeout() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *TimeoutError) ErrorType() string { return "timeout" }

// CapabilityError reports a request the server's declared capabilities
// rule out. It was not sent.
type CapabilityError struct {
	Method     string
	Capability string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("mcpengine: server does not support %s (capability %q not declared)", e.Method, e.Capability)
}

// Is matches ErrCapabilityNotSupported.
func (e *CapabilityError) Is(target error) bool { return target == ErrCapabilityNotSupported }

// ErrorType is the error's class (error.type in telemetry).
func (e *CapabilityError) ErrorType() string { return "capability_not_supported" }

// ProtocolError fails a request whose answer arrived broken but with a
// recognisable id: both result and error or neither, a jsonrpc other than
// "2.0", a malformed error object, or the request's number id sent back
// as a string. The caller learns at once what was wrong instead of
// waiting for its timeout; the frame also counts in Stats.InvalidFrames.
type ProtocolError struct {
	Method string
	// Reason says what was wrong with the answer.
	Reason string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("mcpengine: %s: the server's answer breaks JSON-RPC: %s", e.Method, e.Reason)
}

// Is matches ErrProtocol.
func (e *ProtocolError) Is(target error) bool { return target == ErrProtocol }

// ErrorType is the error's class (error.type in telemetry).
func (e *ProtocolError) ErrorType() string { return "protocol_error" }

// MethodNotInVersionError reports a request refused before sending because
// its method does not exist in the negotiated version (see
// ErrNotInProtocolVersion).
type MethodNotInVersionError struct {
	Method, Version string
}

func (e *MethodNotInVersionError) Error() string {
	return fmt.Sprintf("mcpengine: %s does not exist in protocol version %s", e.Method, e.Version)
}

// Is matches ErrNotInProtocolVersion.
func (e *MethodNotInVersionError) Is(target error) bool { return target == ErrNotInProtocolVersion }

// SafeToRetry: the request never left the engine.
func (e *MethodNotInVersionError) SafeToRetry() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *MethodNotInVersionError) ErrorType() string { return "not_in_protocol_version" }
