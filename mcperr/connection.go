package mcperr

import (
	"fmt"
	"net/http"

	"github.com/mcpengine/mcpengine/oauth"
)

// Errors of a session's connection: lost, never made, refused, closed.

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
// stderr lines attached (stdio servers): "EOF" alone rarely says why a
// server died. Cause is the failure itself.
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

// ConnectError reports a session whose first connection never reached
// its server (refused, unresolvable host, TLS failure, command not
// started, an HTTP/2 connection the server will not carry a request on)
// or found no MCP endpoint at its URL (Status: HTTP 404, 405, 410 or 501
// to the first request). Connect returns it at once unless
// Config.RetryInitialConnect (retrying with backoff is for sessions that
// were up once, or asked for it). Nothing ran on the server, so retrying
// is safe.
type ConnectError struct {
	// Server describes the target without secrets (the dialer's name: a
	// URL, or the command).
	Server string
	// Reason says what failed, in the transport's words.
	Reason string
	// Cause is the transport's error (for an HTTP transport, the
	// synthesized JSON-RPC answer that carried the failure).
	Cause error
	// Local is set when this process, not the server, was the obstacle:
	// it ran out of descriptors or buffer memory (Cause is then a
	// *transport.LocalResourceError). The error then matches
	// transport.ErrLocalResources instead of ErrUnreachable.
	Local bool
	// Status is the HTTP status that said no MCP endpoint is at the URL,
	// 0 when the server was not reached.
	Status int
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

// StartupError closes a session that was never ready because its server
// failed before completing the handshake on every one of Attempts tries:
// it exited (a script that does not exist, a missing dependency, a bad
// flag), closed the connection, or never answered. That is a
// configuration error, not a crash, so the session stops trying and
// Connect returns this error. It matches ErrUnreachable.
type StartupError struct {
	// Server describes the target without secrets.
	Server string
	// Attempts is how many times the server was started or dialed.
	Attempts int
	// Reason is the last try's failure in the transport's words ("stdio:
	// server process 4242 exited with code 1").
	Reason string
	// Stderr is the first lines of the server's stderr on the last try
	// that say what went wrong (an "Error: ..." line rather than the
	// stack's tail), empty when the transport keeps none.
	Stderr string
	// Cause is the last try's failure.
	Cause error
}

func (e *StartupError) Error() string {
	server := e.Server
	if server == "" {
		server = "the server"
	}
	s := fmt.Sprintf("mcpengine: %s failed before its handshake on each of %d tries; last: %s", server, e.Attempts, e.Reason)
	if e.Attempts == 1 {
		s = fmt.Sprintf("mcpengine: %s failed before its handshake: %s", server, e.Reason)
	}
	if e.Stderr != "" {
		s += " (stderr: " + e.Stderr + ")"
	}
	return s
}

// Unwrap gives ErrUnreachable and the cause.
func (e *StartupError) Unwrap() []error { return []error{ErrUnreachable, e.Cause} }

// Permanent marks the error for supervisor.Classify: never retried.
func (e *StartupError) Permanent() bool { return true }

// SafeToRetry: no call reached a ready server.
func (e *StartupError) SafeToRetry() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *StartupError) ErrorType() string { return "unreachable" }

// AuthRefusedError: the server answered the handshake with HTTP 401 or
// 403 and nothing cured it (no OAuth configured, or a static credential
// it refuses). The session closes instead of sending the same credential
// again. It matches oauth.ErrUnauthorized (mcpengine.ErrUnauthorized), as
// a refusal OAuth could not cure does; Cause is the request's failure
// (mcpengine.ErrRequestFailed, with the status).
type AuthRefusedError struct {
	Status int
	Reason string
	Cause  error
}

func (e *AuthRefusedError) Error() string {
	return fmt.Sprintf("mcpengine: the server refused the handshake's credentials (HTTP %d %s): %s", e.Status, http.StatusText(e.Status), e.Reason)
}

// Unwrap gives oauth.ErrUnauthorized and the cause.
func (e *AuthRefusedError) Unwrap() []error { return []error{oauth.ErrUnauthorized, e.Cause} }

// Permanent marks the error for supervisor.Classify: never retried.
func (e *AuthRefusedError) Permanent() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *AuthRefusedError) ErrorType() string { return "unauthorized" }
