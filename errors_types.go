package mcpengine

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport"
)

// ConnectionLostError is returned to every request pending when the
// connection failed; whether the server ran it is unknown. Cause is what
// killed the connection (an io.EOF, a transport's error, a
// ServerStderrError around it), reachable with errors.Is/As.
type ConnectionLostError struct {
	Cause error
}

func (e *ConnectionLostError) Error() string {
	return fmt.Sprintf("mcpengine: connection lost: %v", e.Cause)
}

// Unwrap gives ErrConnectionLost and the cause.
func (e *ConnectionLostError) Unwrap() []error { return []error{ErrConnectionLost, e.Cause} }

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

// VersionMismatchError reports a server answering initialize with a
// protocol version the engine cannot speak. It is retried under the
// restart budget (Config.RestartBudget), then the session closes with it.
type VersionMismatchError struct {
	Offered  string
	Answered string
}

func (e *VersionMismatchError) Error() string {
	return fmt.Sprintf("mcpengine: protocol version mismatch: offered %s, server answered %q", e.Offered, e.Answered)
}

// Is matches ErrVersionMismatch.
func (e *VersionMismatchError) Is(target error) bool { return target == ErrVersionMismatch }

// Budgeted marks the error for supervisor.Classify: retried under the
// restart budget.
func (e *VersionMismatchError) Budgeted() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *VersionMismatchError) ErrorType() string { return "version_mismatch" }

// ConnectError reports a session whose first connection never reached
// its server (refused, unresolvable host, TLS failure, command not
// started). Connect returns it at once unless Config.RetryInitialConnect.
// Nothing was sent, so retrying is safe.
type ConnectError struct {
	// Server describes the target (no secrets); Reason what went wrong.
	Server string
	Reason string
	Cause  error
	// Local is set when this process, not the server, was the obstacle:
	// it ran out of descriptors or buffer memory (Cause is then a
	// *LocalResourceError). The error then matches ErrLocalResources
	// instead of ErrUnreachable.
	Local bool
}

func (e *ConnectError) Error() string {
	what := "cannot reach "
	if e.Local {
		what = "cannot connect to "
	}
	if e.Server == "" {
		return "mcpengine: " + what + "the server: " + e.Reason
	}
	return "mcpengine: " + what + e.Server + ": " + e.Reason
}

// Unwrap gives ErrUnreachable (unless Local) and the cause.
func (e *ConnectError) Unwrap() []error {
	if e.Local {
		return []error{e.Cause}
	}
	return []error{ErrUnreachable, e.Cause}
}

// SafeToRetry: the server never saw anything.
func (e *ConnectError) SafeToRetry() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *ConnectError) ErrorType() string {
	if e.Local {
		return "local_resources"
	}
	return "unreachable"
}

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

// Unwrap gives ErrSessionClosed and the cause, if any.
func (e *ClosedError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrSessionClosed}
	}
	return []error{ErrSessionClosed, e.Cause}
}

// ServerStderrError is a connection failure with the server's last
// stderr lines attached (stdio servers): Cause is the failure itself.
type ServerStderrError struct {
	Cause error
	// Stderr holds the last lines, joined by " | ".
	Stderr string
}

func (e *ServerStderrError) Error() string {
	return e.Cause.Error() + " (server stderr: " + e.Stderr + ")"
}

// Unwrap gives the cause.
func (e *ServerStderrError) Unwrap() error { return e.Cause }

type (
	// RPCError is a JSON-RPC error the server answered with. errors.Is
	// matches it by code against messages.ErrMethodNotFound and the other
	// messages.Err* sentinels.
	RPCError = messages.WireError
	// UnauthorizedError is an authorization failure: the HTTP status, the
	// OAuth error code and the server's error_description, never a token.
	UnauthorizedError = oauth.UnauthorizedError
	// LocalResourceError: a request or dial failed because this process
	// ran out of descriptors or buffer memory; errors.Is matches
	// ErrLocalResources and the errno (syscall.EMFILE …). Counted in
	// Stats.LocalResourceFailures and the
	// mcpengine.client.local_resource_failures metric.
	LocalResourceError = transport.LocalResourceError
)

// AuthRefusedError: the server answered the handshake with HTTP 401 or
// 403 and nothing cured it (no OAuth configured, or a static credential
// it refuses). The session closes instead of sending the same credential
// again. It matches ErrUnauthorized; Cause is the request's failure
// (ErrRequestFailed, with the status).
type AuthRefusedError struct {
	Status int
	Reason string
	Cause  error
}

func (e *AuthRefusedError) Error() string {
	return fmt.Sprintf("mcpengine: the server refused the handshake's credentials (HTTP %d %s): %s", e.Status, http.StatusText(e.Status), e.Reason)
}

// Unwrap gives ErrUnauthorized and the cause.
func (e *AuthRefusedError) Unwrap() []error { return []error{ErrUnauthorized, e.Cause} }

// Permanent marks the error for supervisor.Classify: never retried.
func (e *AuthRefusedError) Permanent() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *AuthRefusedError) ErrorType() string { return "unauthorized" }
