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
		// The writer stays registered: the dispatcher's flush after this
		// batch sends the last frames (notifications/cancelled) while the
		// transport's Close begins with its grace period.
		a.closeInBackground(c, m.ctx)
	}
	close(m.done)
	ctx.Stop(ctx.Self())
}
