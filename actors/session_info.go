package actors

import (
	"github.com/mcpengine/mcpengine/transport"

	"github.com/mcpengine/mcpengine/mcpstate"
)

// tellConnection passes what the handshake learned to a connection that
// needs it (Streamable HTTP: the MCP-Protocol-Version header, and whether
// its standalone GET stream is worth opening). It runs when the session
// becomes ready (before notifications/initialized goes out, so that the
// stream can be open when the server first speaks), when the set of
// resource subscriptions changes and when a notification handler is added
// or removed; the connection dedupes repeats.
func (a *sessionActor) tellConnection() {
	if a.conn == nil || a.state != mcpstate.StateReady {
		return
	}
	aware := a.conn.writer.req
	if aware == nil {
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
		Listen: !neg.Modern() && a.hasSomethingToListenFor(),
	})
}

// hasSomethingToListenFor reports whether the embedder asked for messages
// that answer no request: a notification handler is installed, a resource
// is subscribed to, or the client offers sampling, elicitation or roots
// (handlers the server may call outside any request's answer stream, as
// the conformance suite's elicitation scenario does). What the server
// declares (list changes, subscribe, logging) is no reason on its own: a
// notification nobody handles would be dropped on arrival, and an HTTP
// session that listens holds a stream, a descriptor and a goroutine.
func (a *sessionActor) hasSomethingToListenFor() bool {
	if len(a.sh.actorOnly.subscriptions) > 0 || a.sh.watchers.hasNotify.Load() {
		return true
	}
	return a.sh.cfg.Sampling != nil || a.sh.cfg.Elicitation != nil || a.sh.actorOnly.roots != nil || a.sh.cfg.RootsHandler != nil
}
