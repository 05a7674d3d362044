package actors

// sessionDispatcher runs one session's mailbox. protoactor calls Schedule
// on the goroutine that posted a message to an idle mailbox.
//
//   - Posted by the connection's reader (a response arrived): the reader
//     runs the batch itself. Receive never blocks, and handing the batch to
//     another goroutine would cost a thread wake-up on every response, the
//     largest single cost of a call at low concurrency. Frames that batch
//     queued are written by a worker: the reader must never block on a
//     write (a server blocked writing to us would deadlock with it).
//   - Posted by a caller (Handle.Post) to an idle mailbox: the caller runs
//     the batch itself, then writes what it queued if the connection can
//     write without blocking (transport.TryWriter: a pipe with room); if
//     not, a worker writes it. At one call in flight this saves the
//     hand-off to a worker, a thread wake-up, per request; a caller never
//     waits on a server that stopped reading.
//   - Posted by anyone else (timers, handler goroutines): the batch runs on
//     one of the engine's shared workers, which then writes what the batch
//     queued, on the same goroutine. See writer for why that is safe.
type sessionDispatcher struct {
	workers *Workers
	sh      *Shared

	// process is the mailbox's processMessages, kept from the first
	// Schedule: protoactor passes the same mailbox's method on every wake
	// (a session keeps its mailbox across panic restarts), and binding the
	// worker's function once saves an allocation per wake. It is written
	// once, before the first hand-off to a worker, and only read after.
	process func()
	onWork  func() // d.runBatch, bound once
}

func newSessionDispatcher(workers *Workers, sh *Shared) *sessionDispatcher {
	d := &sessionDispatcher{workers: workers, sh: sh}
	d.onWork = d.runBatch
	return d
}

// Schedule implements actor.Dispatcher.
func (d *sessionDispatcher) Schedule(processMessages func()) {
	if d.process == nil {
		d.process = processMessages
	}
	if d.sh.readerPosting.CompareAndSwap(true, false) {
		d.process()
		if w := d.sh.writer.Load(); w != nil && w.box.pending() {
			d.workers.Schedule(w.flushFn)
		}
		return
	}
	if d.sh.callersPosting.Load() > 0 {
		d.process()
		if w := d.sh.writer.Load(); w != nil && w.box.pending() && !w.tryFlush() {
			d.workers.Schedule(w.flushFn)
		}
		return
	}
	d.workers.Schedule(d.onWork)
}

// runBatch runs on a worker: the batch, then the frames it queued.
func (d *sessionDispatcher) runBatch() {
	d.process()
	if w := d.sh.writer.Load(); w != nil {
		w.flush()
	}
}

// Throughput implements actor.Dispatcher.
func (d *sessionDispatcher) Throughput() int { return d.workers.Throughput() }
