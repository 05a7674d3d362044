package actors

import (
	"context"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// Handle is how the public API talks to one session actor: every method
// posts a message and returns; nothing here touches session state.
type Handle struct {
	sh  *Shared
	pid *actor.PID

	closeOnce sync.Once
	closeDone chan struct{}
}

// Shared returns the session's shared state.
func (h *Handle) Shared() *Shared { return h.sh }

// Post sends a request to the actor; the caller waits on c.Done(). If the
// session is idle, the caller runs the batch (onCaller).
func (h *Handle) Post(c *Call) { h.sh.sched.post(h.pid, c, onCaller) }

// post sends the actor a message whose batch, if it wakes one, runs on a
// worker: the caller does not wait for it.
func (h *Handle) post(m any) { h.sh.sched.post(h.pid, m, onWorker) }

// Send posts c and, when the connection's turn to read is free, reads
// frames on the caller's goroutine until c is answered or ctx ends (see
// turns.go); over a transport.RequestConn it sends c's request itself
// when the actor sent it at once (caller_runs.go). Either way the caller
// then waits on c.Done().
func (h *Handle) Send(ctx context.Context, c *Call) {
	r := h.sh.conn.reader.Load()
	reading := r != nil && r.reserve()
	runs := !reading && h.callerRuns()
	if runs {
		c.own.Store(ownWaiting)
	}
	h.Post(c)
	switch {
	case reading:
		r.readUntilAnswered(ctx, c)
	case runs:
		h.runOwn(ctx, c)
	}
}

// PostNotify sends a notification to the actor; n.Done() closes once it
// was queued for writing.
func (h *Handle) PostNotify(n *Notify) { h.post(n) }

// Cancel forgets c and, if it was sent, sends notifications/cancelled.
func (h *Handle) Cancel(c *Call, reason error) {
	h.post(&cancelCall{call: c, reason: reason})
}

// SetRoots replaces the roots answered to roots/list and notifies the server.
func (h *Handle) SetRoots(roots []rootEntry) { h.post(&setRoots{roots: roots}) }

// TrackSubscription records (on) or forgets a resource subscription so it
// is replayed after reconnects.
func (h *Handle) TrackSubscription(uri string, on bool) {
	h.post(&trackSubscription{uri: uri, on: on})
}

// TrackLogLevel records the log level to replay after reconnects.
func (h *Handle) TrackLogLevel(level string) { h.post(&trackLogLevel{level: level}) }

// Close closes the session: pending and queued calls fail with
// ErrSessionClosed, the transport shuts down within ctx, the actor stops,
// and Close waits (within ctx) for the session's background goroutines.
func (h *Handle) Close(ctx context.Context) error {
	h.closeOnce.Do(func() {
		h.closeDone = make(chan struct{})
		h.post(&closeSession{ctx: ctx, done: h.closeDone})
	})
	select {
	case <-h.closeDone:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.sh.waitIdle(ctx.Done())
	return ctx.Err()
}

// WaitClosed waits until a session whose Close was asked for has closed
// and its background work (a transport's shutdown) is over.
func (h *Handle) WaitClosed() {
	// Called after Close: this Do runs nothing, and orders the read of
	// closeDone after Close's write of it.
	h.closeOnce.Do(func() {})
	if h.closeDone != nil {
		<-h.closeDone
	}
	h.sh.waitIdle(nil)
}

// RefreshListen tells a 2026-07-28 session that the embedder's interest
// changed (a notification handler added or removed): its listen is opened,
// replaced or closed to match.
func (h *Handle) RefreshListen() { h.post(&refreshListen{}) }
