package mcpengine

import (
	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport"
)

// The errors of a session are declared once, with their full
// documentation, in package mcperr; the session actors return them as
// they are. This file gives each its name in this package (the same
// pointers and types, not copies), so errors.Is(err, ErrTimeout) and
// errors.As(err, new(*TimeoutError)) match whatever a call returns.

// Sentinel errors; match with errors.Is. Each is also reachable through
// the typed errors with errors.As. See package mcperr for each one's doc.
var (
	// ErrConnectionLost: the connection died with the request in flight (ConnectionLostError).
	ErrConnectionLost = mcperr.ErrConnectionLost
	// ErrSessionClosed: the session was closed, by Close or for good (ClosedError).
	ErrSessionClosed = mcperr.ErrSessionClosed
	// ErrTimeout: no answer before the request's deadline (TimeoutError).
	ErrTimeout = mcperr.ErrTimeout
	// ErrTooManyInFlight: Config.MaxInFlight is reached; not sent.
	ErrTooManyInFlight = mcperr.ErrTooManyInFlight
	// ErrQueueFull: not ready and the wait queue (Config.QueueLimit) is full; not sent.
	ErrQueueFull = mcperr.ErrQueueFull
	// ErrNotReady: not ready and the call asked to fail fast (FailFast); not sent.
	ErrNotReady = mcperr.ErrNotReady
	// ErrCapabilityNotSupported: the server did not declare the method's capability (CapabilityError).
	ErrCapabilityNotSupported = mcperr.ErrCapabilityNotSupported
	// ErrSubscriptionDeclined: a 2026-07-28 server's listen leaves out the URI Subscribe asked for.
	ErrSubscriptionDeclined = mcperr.ErrSubscriptionDeclined
	// ErrVersionMismatch: no protocol version both sides speak (VersionMismatchError, NoCommonVersionError, NotModernError).
	ErrVersionMismatch = mcperr.ErrVersionMismatch
	// ErrProtocol: the server's answer breaks JSON-RPC (ProtocolError).
	ErrProtocol = mcperr.ErrProtocol
	// ErrUnreachable: the session's first connection never reached its server, or found no MCP endpoint at its URL (ConnectError, StartupError).
	ErrUnreachable = mcperr.ErrUnreachable
	// ErrDuplicateName: Open or Connect with a name the engine already holds.
	ErrDuplicateName = mcperr.ErrDuplicateName
	// ErrUnknownSession: Engine.Session found no session of that name.
	ErrUnknownSession = mcperr.ErrUnknownSession
	// ErrEngineClosed is returned by Connect and Open after Close.
	ErrEngineClosed = mcperr.ErrEngineClosed
	// ErrNotInProtocolVersion: the method does not exist in the negotiated version (MethodNotInVersionError).
	ErrNotInProtocolVersion = mcperr.ErrNotInProtocolVersion
	// ErrInputRequired: still input_required after MaxInputRounds rounds (InputRequiredError).
	ErrInputRequired = mcperr.ErrInputRequired
	// ErrNoInputHandler: no handler for a server's input request (InputRequestError).
	ErrNoInputHandler = mcperr.ErrNoInputHandler
	// ErrUnauthorized: the server requires authorization the engine could
	// not obtain (a 401 a fresh authorization did not cure, a 403, refused
	// metadata, a login that needs a user agent). Never retried.
	ErrUnauthorized = oauth.ErrUnauthorized
	// ErrLocalResources: this process ran out of file descriptors or
	// buffer memory opening or using a connection (EMFILE, ENFILE,
	// ENOBUFS, ENOMEM); the server is not at fault.
	ErrLocalResources = transport.ErrLocalResources
)

// ErrRequestFailed matches (errors.Is) the error of a request that failed
// below JSON-RPC while its session stayed up: an HTTP 5xx or timeout on
// that request alone. Its data (transport.RequestFailure) has the HTTP
// status and the reason. Whether the server ran the request is unknown.
var ErrRequestFailed error = &messages.WireError{Code: transport.CodeRequestFailed, Message: "request failed"}

// SafeToRetry reports whether err guarantees that the request never left
// the engine, so sending it again cannot run it twice (see
// mcperr.SafeToRetry).
func SafeToRetry(err error) bool { return mcperr.SafeToRetry(err) }

// The typed errors; match with errors.As. See package mcperr for each
// one's doc and fields.
type (
	// ConnectionLostError: the connection failed with the request pending; Cause is what killed it.
	ConnectionLostError = mcperr.ConnectionLostError
	// TimeoutError: no answer in time; matches ErrTimeout and context.DeadlineExceeded.
	TimeoutError = mcperr.TimeoutError
	// CapabilityError: the server's declared capabilities rule the request out; not sent.
	CapabilityError = mcperr.CapabilityError
	// VersionMismatchError: initialize answered a version the engine cannot speak; retried under the restart budget.
	VersionMismatchError = mcperr.VersionMismatchError
	// ConnectError: the session's first connection never reached its server, or its URL answered 404/405/410/501; safe to retry.
	ConnectError = mcperr.ConnectError
	// StartupError: a never-ready session's server failed before its handshake on every try; matches ErrUnreachable.
	StartupError = mcperr.StartupError
	// ProtocolError: the request's answer arrived broken; matches ErrProtocol.
	ProtocolError = mcperr.ProtocolError
	// ClosedError: every call after the session closed for good; Cause says why.
	ClosedError = mcperr.ClosedError
	// ServerStderrError: a connection failure with the server's last stderr lines.
	ServerStderrError = mcperr.ServerStderrError
	// AuthRefusedError: the handshake got HTTP 401 or 403 and nothing cured it; matches ErrUnauthorized.
	AuthRefusedError = mcperr.AuthRefusedError
	// NoCommonVersionError: the server speaks none of the engine's versions; permanent.
	NoCommonVersionError = mcperr.NoCommonVersionError
	// NotModernError: a 2026-07-28 version was pinned and the server does not speak it; permanent.
	NotModernError = mcperr.NotModernError
	// MethodNotInVersionError: the method does not exist in the negotiated version; not sent.
	MethodNotInVersionError = mcperr.MethodNotInVersionError
	// InputRequiredError: still input_required after MaxInputRounds rounds; matches ErrInputRequired.
	InputRequiredError = mcperr.InputRequiredError
	// InputRequestError: an input request had no handler, or its handler failed.
	InputRequestError = mcperr.InputRequestError
)

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
	// URLElicitationRequiredError is a -32042 answer (2025-11-25): the
	// request can go on only once the user has completed the URL-mode
	// elicitations it lists (opened each URL). Sending the same request
	// again afterwards may succeed; SafeToRetry still says whether
	// resending is safe.
	URLElicitationRequiredError = messages.URLElicitationRequiredError
)
