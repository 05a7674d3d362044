package mcpengine

import (
	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport"
)

// Sentinel errors; match with errors.Is. Each is also reachable through the
// typed errors below with errors.As.
var (
	ErrConnectionLost         = actors.ErrConnectionLost
	ErrSessionClosed          = actors.ErrSessionClosed
	ErrTimeout                = actors.ErrTimeout
	ErrTooManyInFlight        = actors.ErrTooManyInFlight
	ErrQueueFull              = actors.ErrQueueFull
	ErrNotReady               = actors.ErrNotReady
	ErrCapabilityNotSupported = actors.ErrCapabilityNotSupported
	ErrVersionMismatch        = actors.ErrVersionMismatch
	ErrProtocol               = actors.ErrProtocol
	ErrUnreachable            = actors.ErrUnreachable
	ErrDuplicateName          = actors.ErrDuplicateName
	ErrUnknownSession         = errUnknownSession
	// ErrLocalResources: this process ran out of file descriptors or
	// buffer memory opening or using a connection (EMFILE, ENFILE,
	// ENOBUFS, ENOMEM); the server is not at fault.
	ErrLocalResources = transport.ErrLocalResources
	// ErrUnauthorized: the server requires authorization the engine could
	// not obtain (a 401 a fresh authorization did not cure, a 403, refused
	// metadata, a login that needs a user agent). Never retried.
	ErrUnauthorized = oauth.ErrUnauthorized
)

// Typed errors.
type (
	// ConnectionLostError: the connection died with the request in flight.
	ConnectionLostError = actors.ConnectionLostError
	// TimeoutError: no answer before the request's deadline.
	TimeoutError = actors.TimeoutError
	// CapabilityError: the server did not declare what the method needs.
	CapabilityError = actors.CapabilityError
	// VersionMismatchError: the server answered a version the engine cannot speak.
	VersionMismatchError = actors.VersionMismatchError
	// ConnectError: a session's first connection never reached its server
	// (refused, unresolvable host, TLS failure, command not started), or
	// this process had no descriptor to reach it with (Local, matching
	// ErrLocalResources instead of ErrUnreachable); Connect returns it at
	// once unless Config.RetryInitialConnect.
	ConnectError = actors.ConnectError
	// LocalResourceError: a request or dial failed because this process
	// ran out of descriptors or buffer memory; errors.Is matches
	// ErrLocalResources and the errno (syscall.EMFILE …). Counted in
	// Stats.LocalResourceFailures and the
	// mcpengine.client.local_resource_failures metric.
	LocalResourceError = transport.LocalResourceError
	// ProtocolError: the server's answer to the request broke JSON-RPC.
	ProtocolError = actors.ProtocolError
	// ClosedError: the session is closed; Cause says why.
	ClosedError = actors.ClosedError
	// ServerStderrError is a connection failure with the server's last
	// stderr lines attached (stdio servers).
	ServerStderrError = actors.ServerStderrError
	// RPCError is a JSON-RPC error the server answered with. errors.Is
	// matches it by code against messages.ErrMethodNotFound and the other
	// messages.Err* sentinels.
	RPCError = messages.WireError
	// UnauthorizedError is an authorization failure: the HTTP status, the
	// OAuth error code and the server's error_description, never a token.
	UnauthorizedError = oauth.UnauthorizedError
)

// ErrRequestFailed matches (errors.Is) the error of a request that failed
// below JSON-RPC while its session stayed up: an HTTP 5xx or timeout on
// that request alone. Its data (transport.RequestFailure) has the HTTP
// status and the reason. Whether the server ran the request is unknown.
var ErrRequestFailed error = &messages.WireError{Code: transport.CodeRequestFailed, Message: "request failed"}

// SafeToRetry reports whether err guarantees that the request never left
// the engine, so sending it again cannot run it twice on the server.
func SafeToRetry(err error) bool { return actors.SafeToRetry(err) }

var errUnknownSession = errorString("mcpengine: no session with this name")

type errorString string

func (e errorString) Error() string { return string(e) }
