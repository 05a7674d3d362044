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
	box    outbox
	conn   transport.Conn
	onFail func(error) // posts connFailed to the session; called at most once
	failed bool        // drain goroutine only
}

func newWriter(conn transport.Conn, onFail func(error)) *writer {
	return &writer{conn: conn, onFail: onFail}
}

// enqueue queues one frame; called by the session actor only.
func (w *writer) enqueue(frame []byte) {
	if w.box.push(frame) {
		// Owner: the writer. Exits as soon as the outbox is empty (it
		// checks under the outbox lock, so no frame is ever stranded).
		go w.drain()
	}
}

// drain writes everything queued, batch after batch: frames that arrive
// while a write is in progress go out together in the next WriteFrames.
func (w *writer) drain() {
	for {
		batch := w.box.take()
		if batch == nil {
			return
		}
		if !w.failed {
			if err := w.conn.WriteFrames(batch...); err != nil {
				w.failed = true
				w.onFail(err)
			}
		}
		w.box.recycle(batch)
	}
}
