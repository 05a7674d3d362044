package actors

import (
	"github.com/mcpengine/mcpengine/transport"
)

// writer owns the write side of one connection. It is an actor in the
// mailbox sense (frames are its messages, one consumer drains them in
// order) without being a protoactor process: a protoactor child (context,
// mailbox, registry entry, props) costs about 1.2 KiB per session and a
// Send plus a goroutine wake per burst.
//
// The session actor only queues frames (enqueue). They are written by
// flush, which the session's mailbox scheduler calls on the same worker goroutine
// right after protoactor has processed a batch of the session's messages:
// everything one batch queued goes out in one WriteFrames, with no hand-off
// to another goroutine. By then the mailbox is idle, so a write that blocks
// (a server that stopped reading) stalls this worker only; new messages for
// the session run on another worker. Closing the connection unblocks it.
type writer struct {
	box  outbox
	conn transport.Conn
	// req is conn when it is a transport.RequestConn (HTTP), which takes
	// messages (Send) and never blocks; tw is conn when it is a
	// transport.TryWriter (stdio). The connection's only type assertions,
	// made once.
	req  transport.RequestConn
	tw   transport.TryWriter
	msgs []transport.Message // reused by the draining goroutine for req

	onFail func(error) // posts connFailed to the session; called at most once
	failed bool        // the draining goroutine only
	// flushFn is w.flush, bound once so handing it to a worker allocates
	// nothing.
	flushFn func()
}

func newWriter(conn transport.Conn, onFail func(error)) *writer {
	w := &writer{conn: conn, onFail: onFail}
	w.req, _ = conn.(transport.RequestConn)
	w.tw, _ = conn.(transport.TryWriter)
	w.flushFn = w.flush
	return w
}

// enqueue queues one frame; called by the session actor only.
func (w *writer) enqueue(f *frame) { w.box.push(f) }

// flush writes what is queued unless another goroutine is already doing so
// (it will pick these frames up too).
func (w *writer) flush() {
	if w.box.claim() {
		w.drain()
	}
}

// tryFlush writes what is queued if the connection can do so without
// blocking (a transport.RequestConn always can; a transport.TryWriter
// when there is room), on the calling goroutine. It reports false when
// frames remain that need a write that may block: the caller then hands
// flush to a worker. A caller goroutine that ran an idle session's batch
// uses it to send its own request with no hand-off.
func (w *writer) tryFlush() bool {
	if w.req != nil {
		w.flush()
		return true
	}
	tw := w.tw
	if tw == nil {
		return false
	}
	if !w.box.claim() {
		return true // nothing queued, or a drain in progress will take it
	}
	for {
		b, ok := w.box.take()
		if !ok {
			return true
		}
		if w.failed {
			w.box.recycle(b)
			continue
		}
		written, err := tw.TryWriteFrames(b.bytes...)
		switch {
		case err != nil:
			w.failed = true
			w.onFail(err)
			w.box.recycle(b)
		case written:
			w.box.recycle(b)
		default:
			w.box.giveBack(b)
			return false
		}
	}
}

// drain writes everything queued, batch after batch: frames queued while a
// write is in progress go out together in the next WriteFrames.
func (w *writer) drain() {
	for {
		b, ok := w.box.take()
		if !ok {
			return
		}
		if !w.failed {
			if err := w.write(b); err != nil {
				w.failed = true
				w.onFail(err)
			}
		}
		w.box.recycle(b)
	}
}

// write hands a batch to the connection: its messages to a
// transport.RequestConn, its frames to any other.
func (w *writer) write(b batch) error {
	if w.req == nil {
		return w.conn.WriteFrames(b.bytes...)
	}
	msgs := w.msgs[:0]
	for _, f := range b.frames {
		m := f.msg
		m.Frame = f.b
		msgs = append(msgs, m)
	}
	err := w.req.Send(msgs...)
	clear(msgs) // hold no caller's params or headers
	if cap(msgs) <= keptBatch {
		w.msgs = msgs
	}
	return err
}
