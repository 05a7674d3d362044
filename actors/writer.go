package actors

import (
	"github.com/mcpengine/mcpengine/transport"
)

// writer owns the write side of one connection. It is an actor in the
// mailbox sense (frames are its messages, one consumer drains them in order,
// and it holds a goroutine only while frames are queued) without being a
// protoactor process: a protoactor child (context, mailbox, registry entry,
// props) costs about 1.2 KiB per session, a seventh of an idle session's
// budget, and a Send per burst. The drain loop is the only place that
// blocks on a write, so a slow server stalls the writer, never the session
// actor; closing the connection unblocks it.
type writer struct {
	box     outbox
	run     func(func()) // the engine's Workers.Schedule
	conn    transport.Conn
	onFail  func(error) // posts connFailed to the session; called at most once
	drainFn func()      // w.drain, bound once so scheduling allocates nothing
	failed  bool        // drain goroutine only
}

func newWriter(conn transport.Conn, run func(func()), onFail func(error)) *writer {
	w := &writer{conn: conn, run: run, onFail: onFail}
	w.drainFn = w.drain
	return w
}

// enqueue queues one frame; called by the session actor only.
func (w *writer) enqueue(f *frame) {
	if w.box.push(f) {
		// Runs on an engine worker; returns as soon as the outbox is empty
		// (checked under the outbox lock, so no frame is ever stranded).
		w.run(w.drainFn)
	}
}

// drain writes everything queued, batch after batch: frames that arrive
// while a write is in progress go out together in the next WriteFrames.
func (w *writer) drain() {
	for {
		b, ok := w.box.take()
		if !ok {
			return
		}
		if !w.failed {
			if err := w.conn.WriteFrames(b.bytes...); err != nil {
				w.failed = true
				w.onFail(err)
			}
		}
		w.box.recycle(b)
	}
}
