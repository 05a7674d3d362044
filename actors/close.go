package actors

import (
	"github.com/asynkron/protoactor-go/actor"
)

// onClose fails everything still waiting, shuts the connection down within
// the caller's ctx, and stops the actor.
func (a *sessionActor) onClose(ctx actor.Context, m *closeSession) {
	a.stopTimers()
	if a.state != StateClosed {
		a.failInFlight(&ClosedError{})
		a.failQueue(&ClosedError{})
		a.setState(StateClosed, nil)
		close(a.sh.closed)
	}
	c := a.conn
	a.conn = nil
	for key, cancel := range a.serverReqs {
		cancel()
		delete(a.serverReqs, key)
	}
	if c != nil {
		a.closeInBackground(c, m.ctx)
	}
	close(m.done)
	ctx.Stop(ctx.Self())
}
