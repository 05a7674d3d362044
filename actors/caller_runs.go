package actors

import (
	"context"

	"github.com/mcpengine/mcpengine/messages"
)

// Over a transport.RequestConn (Streamable HTTP) a caller that waits for
// its answer (Handle.Send) sends its request itself when the actor sent
// it at once: the POST and the reading of its answer run on the caller's
// goroutine, and the answer's batch on the same goroutine when the
// session's mailbox is idle (push deliveries run onCaller), so that a
// call costs no goroutine hand-off the raw HTTP loop does not make.
// Otherwise each call crossed to a POST goroutine of the connection and
// back through a worker: at 64 calls in flight on one session, the
// wake-ups were most of what the engine cost over the raw loop.
//
// Who sends is settled on Call.own by one compare-and-swap, whoever comes
// first: the actor, sending the request (ownWaiting → ownHeld: the
// connection keeps the POST for the caller), or the caller, back from
// posting its call (ownWaiting → ownDeclined: the actor had not sent it
// yet, perhaps because another goroutine runs the session's batch, and
// the connection sends it as any other). Asynchronous calls and the
// actor's own requests stay ownNone: their callers must not block on the
// network.
const (
	ownNone     int32 = iota
	ownWaiting        // the caller will run the request if the actor holds it
	ownHeld           // the connection keeps the request for its caller
	ownDeclined       // the caller left: the connection sends it
)

// callerRuns reports whether the current connection lets callers send
// their own requests.
func (h *Handle) callerRuns() bool {
	w := h.sh.conn.writer.Load()
	return w != nil && w.req != nil
}

// runOwn sends c's request on the caller's goroutine if the actor held it
// for this caller. The caller's ctx ending aborts the POST, so that the
// caller gets back to Session.Call's select, which cancels the call.
func (h *Handle) runOwn(ctx context.Context, c *Call) {
	if c.own.CompareAndSwap(ownWaiting, ownDeclined) {
		return
	}
	// Held: c.id was set before the actor's swap. The connection is the
	// one the actor held the request on, or a later one (then the call
	// failed with the first, and RunRequest finds nothing).
	w := h.sh.conn.writer.Load()
	if w == nil || w.req == nil {
		return
	}
	cr := w.req
	id := messages.NumberID(c.id)
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { cr.AbortRequest(id) })
		defer stop()
	}
	cr.RunRequest(id)
}

// holdForCaller asks the connection to keep c's POST for its caller,
// unless the caller has left meanwhile.
func (a *sessionActor) holdForCaller(c *Call) {
	if a.conn == nil || a.conn.writer.req == nil {
		return
	}
	cr := a.conn.writer.req
	id := messages.NumberID(c.id)
	// Not held (legacy HTTP+SSE, whose answers come on its stream): the
	// mark stays ownWaiting and the caller leaves without reading c.id,
	// which a later round of the call (input_rounds.go) may change.
	if cr.HoldRequest(id) && !c.own.CompareAndSwap(ownWaiting, ownHeld) {
		cr.ReleaseRequest(id)
	}
}

// abortOwn ends the POST of a held call that ended without its answer
// (its deadline, a cancel, a lost connection, the session's close).
func (a *sessionActor) abortOwn(c *Call) {
	if a == nil || a.conn == nil || a.conn.writer.req == nil {
		return
	}
	a.conn.writer.req.AbortRequest(messages.NumberID(c.id))
}
