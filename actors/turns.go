package actors

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/transport"
)

// A pull connection's reads are taken in turns. Its reader goroutine holds
// the turn while the session is idle or busy; a caller that finds the turn
// free when it sends a request takes it and reads until its own answer
// arrives. At one call in flight that caller is woken by the runtime poller
// itself, instead of by a reader goroutine that was woken by the poller:
// two thread wake-ups less per call, the largest single cost of a call at
// low concurrency.
//
// The turn passes like this:
//
//   - The reader goroutine frees it after delivering the answer that left
//     no request pending, and nothing more is buffered, if a caller asked
//     for the turn since it took it: the caller that was just woken usually
//     sends its next request at once. (A session nobody calls keeps its
//     reader goroutine reading and never builds the idle timer.)
//   - A caller takes a free turn before it posts its request (reserve), so
//     the actor never sees a request pending with nobody reading.
//   - A caller whose call was answered (or whose ctx ended) gives the turn
//     back: free if nothing is pending or buffered, otherwise to the reader
//     goroutine, woken at once.
//   - The actor, sending a request while the turn is free (a caller that
//     does not read: CallAsync, internal requests), wakes the reader.
//   - A turn left free for idleGrace goes back to the reader goroutine, so
//     that notifications, server requests and EOF of an idle session are
//     read within idleGrace.
//
// Only connections implementing transport.ReadInterrupter take turns: a
// caller blocked in ReadFrame must be woken when its call ends another way
// (timeout, cancel, close), which InterruptRead does.
//
// A variable only so that tests can make it an hour: then a turn wrongly
// left free while a request is pending hangs the test instead of costing
// idleGrace.
var idleGrace = 2 * time.Millisecond

// Turn states.
const (
	turnReader int32 = iota // the reader goroutine reads
	turnFree                // nobody reads; a caller may take it
	turnCaller              // a caller reads
	turnFailed              // the connection failed; nobody reads again
)

// connReader runs the reads of one pull connection.
type connReader struct {
	session *actor.PID
	epoch   uint64
	conn    transport.Conn
	intr    transport.ReadInterrupter // nil: the reader goroutine always reads
	sh      *Shared

	turn atomic.Int32
	// wanted is set by a caller that found the reader goroutine holding
	// the turn; the reader goroutine frees the turn only then.
	wanted atomic.Bool
	wake   chan struct{} // capacity 1: "look at the turn", to the reader goroutine
	// idle fires idleGrace after the turn was freed. Built by the first
	// free (always the reader goroutine's, which holds the turn until
	// then), and touched only by turn holders and the reader goroutine.
	idle *time.Timer
	done chan struct{} // closed when the reader goroutine returns
}

func newConnReader(session *actor.PID, epoch uint64, conn transport.Conn, sh *Shared) *connReader {
	r := &connReader{session: session, epoch: epoch, conn: conn, sh: sh, done: make(chan struct{})}
	if intr, ok := conn.(transport.ReadInterrupter); ok {
		r.intr = intr
		r.wake = make(chan struct{}, 1)
	}
	return r
}

// run is the reader goroutine. It never runs inside Receive, so a blocked
// read cannot hold up the session actor or its Stop.
func (r *connReader) run() {
	defer close(r.done)
	for {
		switch r.turn.Load() {
		case turnFailed:
			return
		case turnReader:
			frame, outcome := r.read()
			if outcome == readFailed {
				return
			}
			if outcome == readInterrupted {
				continue
			}
			// Counted between the read and the delivery, so that "this
			// frame answered the last pending request" is what frees the
			// turn, not a request sent while the read was blocked.
			before := r.sh.conn.pendingCalls.Load()
			r.deliver(frame)
			if r.intr != nil && before > 0 && r.sh.conn.pendingCalls.Load() == 0 && r.wanted.Load() && !r.intr.Buffered() {
				r.wanted.Store(false)
				r.free()
			}
		default: // free, or a caller reads
			select {
			case <-r.wake:
			case <-r.idle.C:
			}
			r.turn.CompareAndSwap(turnFree, turnReader)
		}
	}
}

// Outcomes of read.
const (
	readOK = iota
	readInterrupted
	readFailed // reported to the session; the turn is turnFailed for good
)

// read reads one frame on the turn holder's goroutine. A failure is
// reported to the session and ends the turns for good.
func (r *connReader) read() ([]byte, int) {
	frame, err := r.conn.ReadFrame()
	if err == nil {
		return frame, readOK
	}
	if errors.Is(err, transport.ErrReadInterrupted) {
		return nil, readInterrupted
	}
	r.turn.Store(turnFailed)
	r.signal()
	r.sh.sched.post(r.session, &connFailed{epoch: r.epoch, err: err}, onWorker)
	return nil, readFailed
}

// deliver hands a frame to the session; the turn's holder runs the batch
// it wakes (onReader).
func (r *connReader) deliver(frame []byte) {
	deliverFrame(r.session, r.epoch, r.sh, frame, onReader)
}

// signal wakes the reader goroutine to look at the turn.
func (r *connReader) signal() {
	select {
	case r.wake <- struct{}{}:
	default: // a wake is already pending
	}
}

// free leaves the turn to whoever comes first: a caller, or the reader
// goroutine after idleGrace. A request sent in between finds it free and
// takes it back for the reader (the Dekker pair with requestSent).
func (r *connReader) free() {
	if r.idle == nil {
		r.idle = time.NewTimer(idleGrace)
	} else {
		r.idle.Reset(idleGrace)
	}
	r.turn.Store(turnFree)
	if r.sh.conn.pendingCalls.Load() > 0 && r.turn.CompareAndSwap(turnFree, turnReader) {
		r.signal()
	}
}

// requestSent is called by the actor after it recorded a pending request:
// if nobody reads, the reader goroutine must.
func (r *connReader) requestSent() {
	if r.intr != nil && r.turn.Load() == turnFree && r.turn.CompareAndSwap(turnFree, turnReader) {
		r.signal()
	}
}

// kick wakes the reader goroutine after the connection was closed, so it
// sees the failure now rather than after idleGrace.
func (r *connReader) kick() {
	if r.intr != nil {
		r.turn.CompareAndSwap(turnFree, turnReader)
		r.signal()
	}
}

// reserve takes a free turn for a caller about to post a request.
func (r *connReader) reserve() bool {
	if r.intr == nil {
		return false
	}
	switch r.turn.Load() {
	case turnFree:
		return r.turn.CompareAndSwap(turnFree, turnCaller)
	case turnReader:
		if !r.wanted.Load() {
			r.wanted.Store(true)
		}
	}
	return false
}

// readUntilAnswered is run by a caller holding the turn (reserve): it
// reads and delivers frames until c is answered, ctx ends or the connection
// fails, then hands the turn on. The caller then waits on c.Done() as
// usual: for a call with progress, Done closes once the callbacks ran.
func (r *connReader) readUntilAnswered(ctx context.Context, c *Call) {
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { c.interruptReader() })
		defer stop()
	}
	for !c.answered.Load() && ctx.Err() == nil {
		// Publish that this caller is blocked reading before looking at
		// the call once more: finish stores answered, then loads readingOn
		// (the Dekker pair), so one of the two sees the other.
		c.readingOn.Store(r)
		if c.answered.Load() || ctx.Err() != nil {
			c.readingOn.Store(nil)
			break
		}
		frame, outcome := r.read()
		c.readingOn.Store(nil)
		switch outcome {
		case readFailed:
			return // the session fails c
		case readOK:
			r.sh.stats.FramesReadByCallers.Add(1)
			r.deliver(frame)
		}
	}
	r.release()
}

// release gives a caller's turn back.
func (r *connReader) release() {
	if r.sh.conn.pendingCalls.Load() > 0 || r.intr.Buffered() {
		r.turn.Store(turnReader)
		r.signal()
		return
	}
	r.free()
}
