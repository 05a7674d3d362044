package actors

import (
	"errors"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// ConnectError closes a session whose first connection never reached its
// server: the connection was refused, the host name did not resolve, TLS
// could not be set up, the command could not be started. Retrying with
// backoff is for sessions that were up once (or that asked for it with
// SessionConfig.RetryInitialConnect); a first connect that cannot reach
// anything fails at once, so Connect returns it instead of waiting out
// its timeout. Nothing was sent, so SafeToRetry is true.
type ConnectError struct {
	// Server names the target (the dialer's name: a URL without secrets,
	// or the command).
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

func (e *ConnectError) Unwrap() []error {
	if e.Local {
		return []error{e.Cause}
	}
	return []error{ErrUnreachable, e.Cause}
}

// SafeToRetry is true: nothing reached the server.
func (e *ConnectError) SafeToRetry() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *ConnectError) ErrorType() string {
	if e.Local {
		return "local_resources"
	}
	return "unreachable"
}

// unreachableAtFirstConnect turns a failure of a session that was never
// ready into a *ConnectError when the server was never reached, or this
// process ran out of descriptors trying (Local), and the session did not
// ask for patience; nil otherwise. Two forms reach the
// session: a dial error (stdio, WebSocket, HTTP+SSE), and, for a
// transport that dials lazily (Streamable HTTP), the initialize request's
// synthesized transport.CodeRequestFailed answer, whose data says whether
// the request got anywhere.
func (a *sessionActor) unreachableAtFirstConnect(err error) *ConnectError {
	if a.sh.cfg.RetryInitialConnect || a.sh.facts.negotiated.Load() != nil {
		return nil
	}
	server := dialerName(a.sh.cfg.Dialer)
	if le := a.localResourceFailure(err); le != nil {
		// Retrying would only take descriptors others need: the caller
		// hears at once that this process is out of them.
		return &ConnectError{Server: server, Reason: le.Error(), Cause: le, Local: true}
	}
	var we *messages.WireError
	if errors.As(err, &we) && we.Code == transport.CodeRequestFailed {
		var f transport.RequestFailure
		if messages.Unmarshal(we.Data, &f) != nil || !f.Unreachable {
			return nil
		}
		return &ConnectError{Server: server, Reason: f.Reason, Cause: err}
	}
	if !transport.Unreachable(err) {
		return nil
	}
	return &ConnectError{Server: server, Reason: err.Error(), Cause: err}
}

// dialerName is the dialer's own description of its target, if it has one
// (every transport's Dialer is a fmt.Stringer that leaves secrets out).
func dialerName(d transport.Dialer) string {
	if s, ok := d.(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}
