package actors

import (
	"errors"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// unreachableAtFirstConnect turns a failure of a session that was never
// ready into a *ConnectError when the server was never reached, or this
// process ran out of descriptors trying (Local), and the session did not
// ask for patience; nil otherwise. Two forms reach the
// session: a dial error (stdio, WebSocket, HTTP+SSE), and, for a
// transport that dials lazily (Streamable HTTP), the initialize request's
// synthesized transport.CodeRequestFailed answer, whose data says whether
// the request got anywhere.
func (a *sessionActor) unreachableAtFirstConnect(err error) *mcperr.ConnectError {
	if a.sh.cfg.RetryInitialConnect || a.sh.facts.negotiated.Load() != nil {
		return nil
	}
	server := dialerName(a.sh.cfg.Dialer)
	if le := a.localResourceFailure(err); le != nil {
		// Retrying would only take descriptors others need: the caller
		// hears at once that this process is out of them.
		return &mcperr.ConnectError{Server: server, Reason: le.Error(), Cause: le, Local: true}
	}
	var we *messages.WireError
	if errors.As(err, &we) && we.Code == transport.CodeRequestFailed {
		var f transport.RequestFailure
		if messages.Unmarshal(we.Data, &f) != nil || !f.Unreachable {
			return nil
		}
		return &mcperr.ConnectError{Server: server, Reason: f.Reason, Cause: err}
	}
	if !transport.Unreachable(err) {
		return nil
	}
	return &mcperr.ConnectError{Server: server, Reason: err.Error(), Cause: err}
}

// dialerName is the dialer's own description of its target, if it has one
// (every transport's Dialer is a fmt.Stringer that leaves secrets out).
func dialerName(d transport.Dialer) string {
	if s, ok := d.(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}
