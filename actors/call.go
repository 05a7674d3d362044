package actors

import (
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
)

// Call is one outgoing request, from the caller that made it to the
// response. The caller fills the exported fields and posts the *Call to the
// session actor; from then on only the actor touches it, until it closes
// Done. After Done is closed Result and Err are immutable and safe to read
// from any goroutine.
type Call struct {
	Method string
	Params messages.RawMessage // already encoded by the caller; nil for none

	// Deadline, when set, is the latest moment an answer is useful (usually
	// the caller's ctx deadline). The actor also applies Timeout.
	Deadline time.Time
	// Timeout is the per-request timeout; zero means the session default.
	Timeout time.Duration
	// ResetOnProgress extends the deadline by Timeout on every progress
	// notification, up to MaxTotal after the request was sent.
	ResetOnProgress bool
	// FailFast makes a call that finds the session not ready fail with
	// ErrNotReady instead of waiting in the queue. (Beside the other bool,
	// so that Header fits: Call stays in the 240-byte size class.)
	FailFast bool
	// doneState is where done stands: doneNone, doneMaking, doneMade or
	// doneClosed (here, in the bools' padding).
	doneState atomic.Int32
	MaxTotal  time.Duration
	// Progress, when set, makes the engine generate a progress token for
	// this request and receive its notifications/progress, in order, on the
	// session's callback queue (never on the reader or the actor).
	Progress func(messages.ProgressParams)
	// Header, when set, goes with the request as HTTP headers on a
	// connection that sends them per request (transport.Message.Header:
	// Streamable HTTP); other transports ignore it.
	Header http.Header
	// Span, when telemetry is on, is ended with the call's outcome.
	Span *telemetry.CallSpan

	// Set by the actor.
	id       int64
	sentAt   time.Time
	deadline time.Time
	// onDone replaces completion for the actor's own requests (initialize,
	// resubscribe): it runs inside Receive.
	onDone func(a *sessionActor, result messages.RawMessage, err error)

	// done is made by the first Done that finds the call unfinished (a
	// caller that ran its own request, or read its own answer, finds it
	// finished and needs none); doneState says where it stands.
	done   chan struct{}
	Result messages.RawMessage
	Err    error

	// answered is set by finish, before done closes (which for a call with
	// progress happens later, on the callback queue); a caller reading its own
	// answer (turns.go) watches it. readingOn is the connection reader that
	// caller is blocked in, so that finish can interrupt it.
	answered  atomic.Bool
	own       atomic.Int32 // who sends it over a transport.RequestConn (caller_runs.go)
	readingOn atomic.Pointer[connReader]
}

// NewCall returns a call ready to be posted.
func NewCall(method string, params messages.RawMessage) *Call {
	return &Call{Method: method, Params: params}
}

// The states of Call.done.
const (
	doneNone   = iota // no channel, not finished
	doneMaking        // a Done is making the channel
	doneMade          // c.done is made and open
	doneClosed        // finished: c.done, if made, is closed
)

// Done is closed once Result or Err is set.
func (c *Call) Done() <-chan struct{} {
	for {
		switch c.doneState.Load() {
		case doneClosed:
			return closedChan
		case doneMade:
			return c.done
		case doneNone:
			if c.doneState.CompareAndSwap(doneNone, doneMaking) {
				c.done = make(chan struct{})
				c.doneState.Store(doneMade)
				return c.done
			}
		default:
			runtime.Gosched() // another Done is making it: a few instructions
		}
	}
}

// closeDone marks the call finished for Done, closing the channel if one
// was made.
func (c *Call) closeDone() {
	for {
		switch c.doneState.Load() {
		case doneClosed:
			return
		case doneNone:
			if c.doneState.CompareAndSwap(doneNone, doneClosed) {
				return
			}
		case doneMade:
			if c.doneState.CompareAndSwap(doneMade, doneClosed) {
				close(c.done)
				return
			}
		default:
			runtime.Gosched()
		}
	}
}

// finish completes the call once; later completions are ignored (a late
// response after a timeout, a cancel racing an answer).
func (c *Call) finish(a *sessionActor, result messages.RawMessage, err error) {
	if c.Span != nil {
		span := c.Span
		c.Span = nil
		span.Finished(c.id, result, err)
	}
	if a != nil && a.rounds != nil {
		a.endRounds(c) // a 2026-07-28 exchange ends with its call
	}
	if c.onDone != nil {
		fn := c.onDone
		c.onDone = nil
		fn(a, result, err)
		return
	}
	if c.answered.Load() {
		return
	}
	c.Result, c.Err = result, err
	c.answered.Store(true)
	c.interruptReader()
	if err != nil && c.own.Load() == ownHeld {
		a.abortOwn(c)
	}
	if c.Progress != nil && a != nil {
		// Progress callbacks run on the session's callback queue; waking the
		// caller through it too means every progress notification that
		// arrived before the answer has been delivered when Call returns.
		// A full queue (a callback that never returns) must not strand the
		// caller: then it wakes at once.
		if a.sh.postCallback(c.closeDone) {
			return
		}
	}
	c.closeDone()
}

// interruptReader wakes the caller of c if it is blocked reading the
// connection (turns.go): its call ended without its answer (timeout,
// cancel, connection lost, close), or its ctx ended.
func (c *Call) interruptReader() {
	if r := c.readingOn.Load(); r != nil {
		r.intr.InterruptRead()
	}
}

// isFinished reports whether the call was completed.
func (c *Call) isFinished() bool { return c.answered.Load() }

// Notify is an outgoing notification posted by a caller. Done is closed when
// it was handed to the writer (or refused, with Err set).
type Notify struct {
	method string
	params messages.RawMessage
	done   chan struct{}
	Err    error
}

// NewNotify returns a notification ready to be posted.
func NewNotify(method string, params messages.RawMessage) *Notify {
	return &Notify{method: method, params: params, done: make(chan struct{})}
}

// Done is closed once the notification was queued for writing or refused.
func (n *Notify) Done() <-chan struct{} { return n.done }
