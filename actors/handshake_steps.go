package actors

import (
	"context"

	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
)

// handshakeStep runs one step of a SteppedHandshake on the current
// connection: send its request, and feed the answer (result or error,
// including a timeout) back to the strategy, until it is done or failed.
// A connection lost meanwhile ends it through connectionFailed like any
// handshake; an answer for an older connection is ignored.
func (a *sessionActor) handshakeStep(hs SteppedHandshake, st HandshakeStep) {
	switch {
	case st.Err != nil:
		a.connectionFailed(st.Err)
		return
	case st.Done != nil:
		a.becomeReady(*st.Done)
		return
	case a.conn == nil:
		return
	}
	var raw messages.RawMessage
	if st.Params != nil {
		var err error
		if raw, err = messages.MarshalOnce(st.Params); err != nil {
			a.connectionFailed(err)
			return
		}
	}
	if st.Meta != nil {
		// Once per handshake step: the Call stays as small as before.
		raw = messages.WithMeta(raw, st.Meta.Fields()...)
	}
	c := NewCall(st.Method, raw)
	c.Timeout = a.sh.cfg.InitTimeout
	if st.Timeout > 0 && st.Timeout < c.Timeout {
		c.Timeout = st.Timeout
	}
	version := ""
	if st.Meta != nil {
		version = st.Meta.ProtocolVersion
	}
	c.Span, c.Params = a.sh.cfg.Telemetry.StartCall(context.Background(), a.sh.cfg.peer(), version, a.transportSessionID(), st.Method, raw)
	epoch := a.conn.epoch
	c.onDone = func(a *sessionActor, result messages.RawMessage, err error) {
		if a.conn == nil || a.conn.epoch != epoch || a.state != mcpstate.StateInitializing {
			return
		}
		a.handshakeStep(hs, hs.Step(result, err))
	}
	a.transmit(c)
}
