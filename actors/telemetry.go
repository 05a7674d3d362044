package actors

import (
	"errors"

	"github.com/mcpengine/mcpengine/telemetry"
)

var errRestarted = errors.New("mcpengine: session actor restarted after a panic")

// peer is the server as telemetry describes it; the zero Peer without one.
func (c *SessionConfig) peer() telemetry.Peer {
	if c.Peer == nil {
		return telemetry.Peer{}
	}
	return *c.Peer
}

// endBackoff ends the span of the backoff wait, if one is open.
func (a *sessionActor) endBackoff(err error) {
	a.backoffSpan.End(err)
	a.backoffSpan = nil
}

// endPhases ends every open lifecycle span: the session is closing or its
// actor is being replaced.
func (a *sessionActor) endPhases(err error) {
	a.connectSpan.End(err)
	a.connectSpan = nil
	a.endBackoff(err)
}

// sessionEnded records how long the connection that just ended had been
// ready (mcp.client.session.duration), once per connection.
func (a *sessionActor) sessionEnded(err error) {
	if a.readySince == 0 {
		return
	}
	if a.sh.cfg.Telemetry != nil {
		version := ""
		if n := a.sh.Negotiated(); n != nil {
			version = n.ProtocolVersion
		}
		a.sh.cfg.Telemetry.SessionEnded(a.sh.cfg.peer(), version, monoNow()-a.readySince, err)
	}
	a.readySince = 0
}

// transportSessionID is the server-assigned session id of connections that
// have one (Streamable HTTP's Mcp-Session-Id), for mcp.session.id.
func (a *sessionActor) transportSessionID() string {
	if a.conn == nil || a.conn.writer.req == nil {
		return ""
	}
	return a.conn.writer.req.SessionID()
}
