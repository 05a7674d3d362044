package actors

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. The root package re-exports them; match with errors.Is.
var (
	// ErrConnectionLost: the connection died while the request was in
	// flight; whether the server ran it is unknown.
	ErrConnectionLost = errors.New("mcpengine: connection lost")
	// ErrSessionClosed: the session was closed (by Close or permanently).
	ErrSessionClosed = errors.New("mcpengine: session closed")
	// ErrTimeout: no response before the request's deadline.
	ErrTimeout = errors.New("mcpengine: request timed out")
	// ErrTooManyInFlight: the session's in-flight cap is reached.
	ErrTooManyInFlight = errors.New("mcpengine: too many requests in flight")
	// ErrQueueFull: the session is not ready and its wait queue is full.
	ErrQueueFull = errors.New("mcpengine: wait queue full")
	// ErrNotReady: the session is not ready and the caller asked to fail fast.
	ErrNotReady = errors.New("mcpengine: session not ready")
	// ErrCapabilityNotSupported: the server did not declare the capability
	// the method needs.
	ErrCapabilityNotSupported = errors.New("mcpengine: capability not supported by server")
	// ErrVersionMismatch: the server answered a protocol version the engine
	// does not speak (or not the pinned one in strict mode).
	ErrVersionMismatch = errors.New("mcpengine: protocol version mismatch")
)

// ConnectionLostError is returned to every request pending when the
// connection failed. Cause is what killed the connection.
type ConnectionLostError struct {
	Cause error
}

func (e *ConnectionLostError) Error() string {
	return fmt.Sprintf("mcpengine: connection lost: %v", e.Cause)
}
func (e *ConnectionLostError) Unwrap() []error { return []error{ErrConnectionLost, e.Cause} }

// TimeoutError reports a request that got no answer in time.
type TimeoutError struct {
	Method string
	After  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("mcpengine: %s timed out after %v", e.Method, e.After)
}
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// Timeout lets net-style checks (err.(interface{ Timeout() bool })) work.
func (e *TimeoutError) Timeout() bool { return true }

// CapabilityError reports a request the server's capabilities rule out.
type CapabilityError struct {
	Method     string
	Capability string
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("mcpengine: server does not support %s (capability %q not declared)", e.Method, e.Capability)
}
func (e *CapabilityError) Is(target error) bool { return target == ErrCapabilityNotSupported }

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
