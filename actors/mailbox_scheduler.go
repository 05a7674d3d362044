package actors

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// runner names the goroutine that runs the batch of session messages a
// post wakes (a post to a busy mailbox wakes nothing: the batch under way
// takes the message). Every post to a session says which it is
// (mailboxScheduler.post), and Schedule is the one place that acts on it.
type runner uint8

const (
	// onWorker: timers, handler and dial goroutines, the writer, the
	// Handle's other messages. A worker of the pool runs the batch, then
	// writes every frame it queued, on the same goroutine.
	onWorker runner = iota
	// onCaller: a caller of Handle.Post, or a push connection's goroutine
	// delivering a frame (a POST's, which is often the waiting caller's
	// own: caller_runs.go). It runs the batch itself, then
	// writes what the batch queued if the connection can take it without
	// blocking (transport.RequestConn, or transport.TryWriter: a pipe with room); otherwise a worker
	// writes it. At one call in flight this saves a hand-off to a worker,
	// a thread wake-up, per request, and a caller never waits on a server
	// that stopped reading.
	onCaller
	// onReader: the holder of a pull connection's turn to read, posting a
	// received frame. It runs the batch itself (handing it to another
	// goroutine would cost a thread wake-up per response, the largest
	// single cost of a call at one call in flight) and hands what the
	// batch queued to a worker: a reader never writes, so a server blocked
	// writing to us cannot deadlock with it.
	onReader
)

// mailboxScheduler is the session mailbox's actor.Dispatcher: protoactor
// calls Schedule on the goroutine whose post woke an idle mailbox, and
// Schedule runs the batch there or on a worker, as that post's runner
// says.
//
// protoactor's Send carries no word from the poster to Schedule, so post
// marks the runner for the length of its Send and Schedule reads the mark.
// Another goroutine's post may wake the mailbox while a mark is set and run
// the batch by that mark's rule; that is harmless, because no rule blocks:
// Receive never blocks and only a worker makes a write that may.
type mailboxScheduler struct {
	// sh gives the actor system, the worker pool and the current
	// connection's writer. One pointer, not three: the scheduler is
	// allocated per session and stays in the 32-byte size class.
	sh *Shared

	// Marks, set by post around its Send; read by Schedule only.
	readerPosting  atomic.Bool  // consumed by the Schedule it causes
	callersPosting atomic.Int32 // callers inside post(…, onCaller)

	// process is the mailbox's processMessages, kept from the first
	// Schedule: protoactor passes the same mailbox's method on every wake
	// (a session keeps its mailbox across panic restarts), and binding the
	// worker's function once saves an allocation per wake. It is written
	// once, before the first hand-off to a worker, and only read after.
	process func()
	onWork  func() // s.runBatch, bound once
}

func newMailboxScheduler(sh *Shared) *mailboxScheduler {
	s := &mailboxScheduler{sh: sh}
	s.onWork = s.runBatch
	return s
}

// post sends msg to the session at to; if its mailbox was idle, by runs
// the batch msg wakes.
func (s *mailboxScheduler) post(to *actor.PID, msg any, by runner) {
	switch by {
	case onCaller:
		s.callersPosting.Add(1)
		s.sh.sys.Root.Send(to, msg)
		s.callersPosting.Add(-1)
	case onReader:
		s.readerPosting.Store(true)
		s.sh.sys.Root.Send(to, msg)
		s.readerPosting.Store(false)
	default:
		s.sh.sys.Root.Send(to, msg)
	}
}

// waker is the runner of the post that is waking the mailbox.
func (s *mailboxScheduler) waker() runner {
	switch {
	case s.readerPosting.CompareAndSwap(true, false):
		return onReader
	case s.callersPosting.Load() > 0:
		return onCaller
	default:
		return onWorker
	}
}

// Schedule implements actor.Dispatcher.
func (s *mailboxScheduler) Schedule(processMessages func()) {
	if s.process == nil {
		s.process = processMessages
	}
	switch s.waker() {
	case onReader:
		s.process()
		if w := s.sh.conn.writer.Load(); w != nil && w.box.pending() {
			s.sh.workers.Schedule(w.flushFn)
		}
	case onCaller:
		s.process()
		if w := s.sh.conn.writer.Load(); w != nil && w.box.pending() && !w.tryFlush() {
			s.sh.workers.Schedule(w.flushFn)
		}
	default:
		s.sh.workers.Schedule(s.onWork)
	}
}

// runBatch runs on a worker: the batch, then the frames it queued.
func (s *mailboxScheduler) runBatch() {
	s.process()
	if w := s.sh.conn.writer.Load(); w != nil {
		w.flush()
	}
}

// Throughput implements actor.Dispatcher.
func (s *mailboxScheduler) Throughput() int { return s.sh.workers.Throughput() }
