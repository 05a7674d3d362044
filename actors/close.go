package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcpstate"
)

// onClose closes the session for good (if a permanent failure has not
// already), shuts the connection down within the caller's ctx, and stops
// the actor.
func (a *sessionActor) onClose(ctx actor.Context, m *closeSession) {
	if a.state != mcpstate.StateClosed {
		a.closeForGood(nil)
	}
	a.dropConnection(m.ctx)
	close(m.done)
	ctx.Stop(ctx.Self())
}
