package actors

import (
	"context"

	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
)

// handshakeStep runs one step of a steppedHandshake on the current
// connection: send its request, and feed the answer (result or error,
// including a timeout) back to the strategy, until it is done or failed.
// A connection lost meanwhile ends it through connectionFailed like any
// handshake; an answer for an older connection is ignored.
func (a *sessionActor) handshakeStep(hs steppedHandshake, st handshakeStep) {
	switch {
	case st.err != nil:
		a.connectionFailed(st.err)
		return
	case st.done != nil:
		a.becomeReady(*st.done)
		return
	case a.conn == nil:
		return
	}
	var raw messages.RawMessage
	if st.params != nil {
		var err error
		if raw, err = messages.MarshalOnce(st.params); err != nil {
			a.connectionFailed(err)
			return
		}
	}
	if st.meta != nil {
		// Once per handshake step: the Call stays as small as before.
		raw = messages.WithMeta(raw, st.meta.Fields()...)
	}
	c := NewCall(st.method, raw)
	c.Timeout = a.sh.cfg.InitTimeout
	if st.timeout > 0 && st.timeout < c.Timeout {
		c.Timeout = st.timeout
	}
	version := ""
	if st.meta != nil {
		version = st.meta.ProtocolVersion
	}
	c.Span, c.Params = a.sh.cfg.Telemetry.StartCall(context.Background(), a.sh.cfg.peer(), version, a.transportSessionID(), st.method, raw)
	epoch := a.conn.epoch
	c.onDone = func(a *sessionActor, result messages.RawMessage, err error) {
		if a.conn == nil || a.conn.epoch != epoch || a.state != mcpstate.StateInitializing {
			return
		}
		a.handshakeStep(hs, hs.step(result, err))
	}
	a.transmit(c)
	if st.probe {
		a.probeID = c.id
	}
}
