package actors

import (
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// tellConnection passes what the handshake learned to a connection that
// needs it (Streamable HTTP: the MCP-Protocol-Version header, and whether
// its standalone GET stream is worth opening). It runs when the session
// becomes ready and when the set of resource subscriptions changes; the
// connection dedupes repeats.
func (a *sessionActor) tellConnection() {
	if a.conn == nil || a.state != StateReady {
		return
	}
	aware, ok := a.conn.conn.(transport.SessionAware)
	if !ok {
		return
	}
	neg := a.sh.Negotiated()
	if neg == nil {
		return
	}
	aware.Negotiated(transport.SessionInfo{
		ProtocolVersion: neg.ProtocolVersion,
		// The stateless era has no standalone stream to listen on
		// (subscriptions/listen replaces it, not yet implemented).
		Listen: !neg.Modern() && a.hasSomethingToListenFor(neg.Capabilities),
	})
}

// hasSomethingToListenFor reports whether the server may send messages that
// answer no request: it declared list changes, resource subscriptions or
// logging, the application subscribed to a resource, or the client offers
// sampling, elicitation or roots. Otherwise the server has nothing to say
// outside request answers, so an HTTP session needs no open stream.
func (a *sessionActor) hasSomethingToListenFor(caps messages.ServerCapabilities) bool {
	if len(a.sh.subscriptions) > 0 || caps.Logging != nil {
		return true
	}
	// Servers may send sampling, elicitation and roots requests outside
	// any request's answer stream (the conformance suite's elicitation
	// scenario does), so offering any of them is reason to listen.
	if a.sh.cfg.Sampling != nil || a.sh.cfg.Elicitation != nil || a.sh.roots != nil || a.sh.cfg.RootsHandler != nil {
		return true
	}
	if t := caps.Tools; t != nil && t.ListChanged {
		return true
	}
	if p := caps.Prompts; p != nil && p.ListChanged {
		return true
	}
	if r := caps.Resources; r != nil && (r.ListChanged || r.Subscribe) {
		return true
	}
	return false
}
