package actors

import (
	"errors"
	"net/http"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// unreachableAtFirstConnect turns a failure of a session that was never
// ready into a *ConnectError when the server was never reached, answered
// with a status that says no MCP endpoint is at the URL (404, 405, 410,
// 501), or this process ran out of descriptors trying (Local), and the
// session did not ask for patience; nil otherwise. Two forms reach the
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
		if messages.Unmarshal(we.Data, &f) != nil {
			return nil
		}
		switch {
		case f.Unreachable:
			return &mcperr.ConnectError{Server: server, Reason: f.Reason, Cause: err}
		case noEndpoint(f.Status):
			// The server is there, but no MCP endpoint is at this URL: the
			// same request meets the same answer on every try.
			return &mcperr.ConnectError{Server: server, Reason: f.Reason + " (no MCP endpoint at this URL)", Cause: err, Status: f.Status}
		}
		return nil
	}
	if !transport.Unreachable(err) {
		return nil
	}
	return &mcperr.ConnectError{Server: server, Reason: err.Error(), Cause: err}
}

// noEndpoint reports whether an HTTP status answering a session's very
// first request says that no MCP endpoint is at the URL (a wrong path, a
// server that takes no POST there), which no retry can change. 401 and
// 403 are authRefused's; 5xx and 429 may pass.
func noEndpoint(status int) bool {
	switch status {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusGone, http.StatusNotImplemented:
		return true
	}
	return false
}

// dialerName is the dialer's own description of its target, if it has one
// (every transport's Dialer is a fmt.Stringer that leaves secrets out).
func dialerName(d transport.Dialer) string {
	if s, ok := d.(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}
