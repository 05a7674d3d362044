package actors

import (
	"net/http"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// onCall admits a caller's request: straight to the wire when ready,
// otherwise into the bounded wait queue until ready or its deadline.
func (a *sessionActor) onCall(_ actor.Context, c *Call) {
	a.sh.stats.Requests.Add(1)
	switch a.state {
	case mcpstate.StateReady:
		a.transmit(c)
	case mcpstate.StateClosed:
		c.finish(a, nil, &mcperr.ClosedError{Cause: a.sh.facts.closeErr})
	default:
		if c.FailFast {
			c.finish(a, nil, mcperr.ErrNotReady)
			return
		}
		if len(a.queue) >= a.sh.cfg.QueueLimit {
			c.finish(a, nil, mcperr.ErrQueueFull)
			return
		}
		if a.roundsOf(c) == nil { // a call's rounds keep its first deadline
			c.deadline = a.deadlineFor(c, time.Now())
		}
		a.queue = append(a.queue, c)
		a.sh.stats.Queued.Store(int64(len(a.queue)))
		a.armSweep(c.deadline)
	}
}

func (a *sessionActor) timeoutFor(c *Call) time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return a.sh.cfg.RequestTimeout
}

// timeoutError says which limit ran out: the caller's own deadline (its
// ctx) or the request timeout.
func (a *sessionActor) timeoutError(c *Call) *mcperr.TimeoutError {
	if !c.Deadline.IsZero() && (c.deadline.IsZero() || !c.deadline.Before(c.Deadline)) {
		e := &mcperr.TimeoutError{Method: c.Method, CallerDeadline: true}
		if !c.sentAt.IsZero() {
			e.After = c.Deadline.Sub(c.sentAt).Round(time.Millisecond)
		}
		return e
	}
	return &mcperr.TimeoutError{Method: c.Method, After: a.timeoutFor(c)}
}

func (a *sessionActor) deadlineFor(c *Call, now time.Time) time.Time {
	if c.noDeadline() {
		return time.Time{} // the listen: the sweep leaves it alone
	}
	d := now.Add(a.timeoutFor(c))
	if !c.Deadline.IsZero() && c.Deadline.Before(d) {
		d = c.Deadline
	}
	return d
}

// transmit assigns an id, records the call as pending and hands its frame
// to the writer. Checks that can refuse it come first, so a refused call
// never reached the wire (SafeToRetry).
func (a *sessionActor) transmit(c *Call) {
	// Callers' requests of a stateless session carry its _meta; the
	// actor's own requests (the handshake's) come with theirs in Params.
	var meta *messages.RequestMeta
	if c.onDone == nil {
		if neg := a.sh.facts.negotiated.Load(); neg != nil {
			if neg.Modern() && c.Method == messages.MethodLoggingSetLevel {
				a.setLevelLocally(c)
				return
			}
			if err := checkCapability(c.Method, neg); err != nil {
				c.finish(a, nil, err)
				return
			}
			meta = a.requestMeta(neg)
		}
		if a.pending.len() >= a.sh.cfg.MaxInFlight {
			c.finish(a, nil, mcperr.ErrTooManyInFlight)
			return
		}
	} else if c.Method == messages.MethodSubscriptionsListen {
		meta = a.requestMeta(a.sh.facts.negotiated.Load()) // the actor's own, in a ready modern session
	}
	now := time.Now()
	if !c.Deadline.IsZero() && !now.Before(c.Deadline) {
		c.finish(a, nil, a.timeoutError(c))
		return
	}
	a.nextID++
	c.id = a.nextID
	params := c.Params
	if r := a.roundsOf(c); r == nil {
		c.sentAt = now
		c.deadline = a.deadlineFor(c, now)
	} else {
		// Sent again after input_required (input_rounds.go): one call,
		// one deadline, from its first send.
		params = r.params
	}
	a.pending.put(c)
	if c.noDeadline() {
		a.listenID = c.id
	}
	a.publishPending()
	if a.conn != nil && a.conn.reader != nil {
		a.conn.reader.requestSent()
	}
	a.armSweep(c.deadline)

	if c.Progress != nil {
		params = withProgressToken(params, c.id)
	}
	if c.own.Load() == ownWaiting {
		a.holdForCaller(c)
	}
	a.writeRequest(messages.NumberID(c.id), c.Method, params, meta, c.Header)
}

// forget removes a request from the pending map.
func (a *sessionActor) forget(id int64) {
	a.pending.delete(id)
	if id == a.listenID {
		a.listenID = 0
	}
	a.publishPending()
}

// publishPending publishes the number of pending requests for the turn
// decisions of the connection's readers (turns.go), the listen left out:
// it is pending for the connection's life, and counting it would keep the
// reader goroutine reading for good, so that no caller would read its own
// answer. Its notifications are read like an idle session's, by whoever
// holds the turn, or by the reader goroutine within idleGrace.
func (a *sessionActor) publishPending() {
	n := a.pending.len()
	if a.listenID != 0 {
		n--
	}
	a.sh.conn.pendingCalls.Store(int32(n))
}

// write queues one frame for the writer.
func (a *sessionActor) write(f *frame) {
	if a.conn == nil {
		putFrame(f)
		return
	}
	a.sh.stats.FramesOut.Add(1)
	a.conn.writer.enqueue(f)
}

// sendsMessages reports whether the connection takes messages
// (transport.RequestConn) rather than bare frames: only then does a frame
// carry what the session knows of it, so a stream transport's frames cost
// nothing more.
func (a *sessionActor) sendsMessages() bool {
	return a.conn != nil && a.conn.writer.req != nil
}

// writeRequest writes a request with the modern era's per-request _meta
// spliced in while the frame is built (meta nil: a legacy request, or one
// that carries its own), and, beside the frame, what a request transport
// needs to know of it (transport.Message): header, the caller's own HTTP
// headers, goes only there.
func (a *sessionActor) writeRequest(id messages.ID, method string, params messages.RawMessage, meta *messages.RequestMeta, header http.Header) {
	f := getFrame()
	f.b = messages.AppendRequestWithMeta(f.b, id, method, params, meta)
	if a.sendsMessages() {
		f.msg = transport.Message{Kind: messages.KindRequest, ID: id, Method: method, Params: params, Header: header}
		if meta != nil {
			f.msg.Version = meta.ProtocolVersion
		}
	}
	a.write(f)
}

func (a *sessionActor) writeNotification(method string, params messages.RawMessage) {
	f := getFrame()
	f.b = messages.AppendNotification(f.b, method, params)
	if a.sendsMessages() {
		f.msg = transport.Message{Kind: messages.KindNotification, Method: method}
	}
	a.write(f)
}

func (a *sessionActor) writeResult(id messages.ID, result messages.RawMessage) {
	f := getFrame()
	f.b = messages.AppendResult(f.b, id, result)
	if a.sendsMessages() {
		f.msg = transport.Message{Kind: messages.KindResponse, ID: id}
	}
	a.write(f)
}

func (a *sessionActor) writeError(id messages.ID, e *messages.WireError) {
	f := getFrame()
	f.b = messages.AppendError(f.b, id, e)
	if a.sendsMessages() {
		f.msg = transport.Message{Kind: messages.KindResponse, ID: id}
	}
	a.write(f)
}

func (a *sessionActor) onNotify(n *Notify) {
	if a.state != mcpstate.StateReady || a.conn == nil {
		n.Err = mcperr.ErrNotReady
	} else {
		a.writeNotification(n.method, n.params)
	}
	close(n.done)
}

// onCancel forgets a request whose caller gave up and, if it was sent,
// tells the server so it can stop working on it.
func (a *sessionActor) onCancel(m *cancelCall) {
	c := m.call
	if c.isFinished() {
		return
	}
	if c.id != 0 && a.pending.get(c.id) == c {
		a.forget(c.id)
		a.sendCancelled(c.id, m.reason)
	} else {
		a.removeQueued(c) // or its input requests are being answered: finish ends them
	}
	c.finish(a, nil, m.reason)
}

func (a *sessionActor) sendCancelled(id int64, reason error) {
	p := messages.CancelledParams{RequestID: messages.NumberID(id)}
	if reason != nil {
		p.Reason = reason.Error()
	}
	raw, err := messages.Marshal(&p)
	if err == nil {
		f := getFrame()
		f.b = messages.AppendNotification(f.b, messages.NotificationCancelled, raw)
		if a.sendsMessages() {
			f.msg = transport.Message{Kind: messages.KindNotification, Method: messages.NotificationCancelled, Cancels: p.RequestID}
		}
		a.write(f)
	}
}

func (a *sessionActor) removeQueued(c *Call) {
	for i, q := range a.queue {
		if q == c {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			a.sh.stats.Queued.Store(int64(len(a.queue)))
			return
		}
	}
}

// armSweep makes sure the session is swept no later than t: it is queued
// in deadlines at its earliest deadline. Per-request timers would cost a
// timer per call; this costs nothing on the hot path (a comparison) once
// the session is queued for a sooner deadline.
func (a *sessionActor) armSweep(t time.Time) {
	if t.IsZero() {
		return // no deadline
	}
	at := t.Sub(monoStart)
	if a.sweepAt != 0 && at >= a.sweepAt {
		return
	}
	a.sweepAt = at
	deadlines.set(a, at)
}

// dropSweepTimer takes the session out of the deadline queue. A sweep
// already sent finds nothing overdue.
func (a *sessionActor) dropSweepTimer() {
	deadlines.remove(a)
	a.sweepAt = 0
}

// deadlineSlot implements deadlineWaiter.
func (a *sessionActor) deadlineSlot() *int32 { return &a.sweepSlot }

// deadlineDue implements deadlineWaiter: the sweep runs on the actor.
func (a *sessionActor) deadlineDue() { a.sh.sched.post(a.self, &sweepDue{}, onWorker) }

// sweep expires overdue requests (pending: with notifications/cancelled;
// queued: never sent) and re-arms the timer for the next deadline.
func (a *sessionActor) sweep() {
	now := time.Now()
	a.sweepAt = 0
	var next time.Time
	consider := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	a.pending.each(func(id int64, c *Call) {
		if c.deadline.IsZero() {
			return // no deadline (the listen)
		}
		if now.Before(c.deadline) {
			consider(c.deadline)
			return
		}
		a.forget(id)
		if id != a.probeID {
			a.sh.stats.Timeouts.Add(1)
		}
		if c.onDone == nil {
			a.sendCancelled(id, a.timeoutError(c))
		}
		c.finish(a, nil, a.timeoutError(c))
	})
	a.sweepRounds(now, consider)
	kept := a.queue[:0]
	for _, c := range a.queue {
		if c.isFinished() {
			continue
		}
		if now.Before(c.deadline) {
			consider(c.deadline)
			kept = append(kept, c)
			continue
		}
		a.sh.stats.Timeouts.Add(1)
		c.finish(a, nil, a.timeoutError(c))
	}
	for i := len(kept); i < len(a.queue); i++ {
		a.queue[i] = nil
	}
	a.queue = kept
	a.sh.stats.Queued.Store(int64(len(a.queue)))
	if !next.IsZero() {
		a.armSweep(next)
	}
}

// failInFlight fails every sent request at once: their fate on the server
// is unknown, and no caller may hang on a dead connection.
func (a *sessionActor) failInFlight(err error) {
	a.pending.each(func(id int64, c *Call) {
		a.forget(id)
		c.finish(a, nil, err)
	})
}

// failQueue fails every request still waiting for ready, and those whose
// input requests are being answered.
func (a *sessionActor) failQueue(err error) {
	a.failRounds(err)
	q := a.queue
	a.queue = nil
	a.sh.stats.Queued.Store(int64(len(a.queue)))
	for _, c := range q {
		c.finish(a, nil, err)
	}
}
