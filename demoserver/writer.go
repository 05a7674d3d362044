package demoserver

import (
	"sync"

	"github.com/mcpengine/mcpengine/transport"
)

const (
	// newBufCap is the capacity of a fresh frame buffer: most responses fit.
	newBufCap = 512
	// maxPooledBuf is the largest buffer kept for reuse; bigger ones (large
	// results) are left to the garbage collector.
	maxPooledBuf = 64 << 10
	// maxFreeBufs bounds the per-connection free list.
	maxFreeBufs = 256
)

// writer is the one goroutine per connection that writes to the Conn. Every
// outgoing frame is queued with send; the writer hands everything queued
// since its last write to one WriteFrames call, so bursts of responses cost
// one write. send never blocks (the queue is unbounded: a client that stops
// reading makes the queue grow, which is a test server's prerogative).
//
// Frame buffers cycle through a small free list: getBuf hands one out, the
// writer takes it back after the write.
type writer struct {
	conn    transport.Conn
	onError func(error) // called once, from the writer goroutine, on a write error
	faults  *faultState

	mu     sync.Mutex
	queue  [][]byte
	free   [][]byte
	closed bool
	err    error

	wake chan struct{} // capacity 1: "the queue is not empty or closed changed"
	done chan struct{} // closed when run returns
}

func newWriter(conn transport.Conn, faults *faultState, onError func(error)) *writer {
	return &writer{
		conn:    conn,
		onError: onError,
		faults:  faults,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// getBuf returns an empty buffer for building one frame.
func (w *writer) getBuf() []byte {
	w.mu.Lock()
	if n := len(w.free); n > 0 {
		b := w.free[n-1]
		w.free = w.free[:n-1]
		w.mu.Unlock()
		return b[:0]
	}
	w.mu.Unlock()
	return make([]byte, 0, newBufCap)
}

// putBuf returns a buffer that was never sent.
func (w *writer) putBuf(b []byte) {
	if cap(b) > maxPooledBuf {
		return
	}
	w.mu.Lock()
	if len(w.free) < maxFreeBufs {
		w.free = append(w.free, b[:0])
	}
	w.mu.Unlock()
}

// send queues a notification or request frame; the writer owns it now.
func (w *writer) send(frame []byte) { w.enqueue(frame, false) }

// sendResponse queues a response frame; response faults (garbage lines)
// are applied here so that they precede the response they are counted for.
func (w *writer) sendResponse(frame []byte) { w.enqueue(frame, true) }

func (w *writer) enqueue(frame []byte, response bool) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if response && w.faults != nil {
		if g := w.faults.garbageBeforeResponse(); g != nil {
			w.queue = append(w.queue, g)
		}
	}
	w.queue = append(w.queue, frame)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close stops accepting frames; run writes what is queued and returns.
func (w *writer) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run is the writer goroutine's body. It returns after close once the queue
// is drained (or immediately after a write error, dropping the rest).
func (w *writer) run() {
	defer close(w.done)
	var batch [][]byte
	for range w.wake {
		w.mu.Lock()
		batch, w.queue = w.queue, batch[:0]
		closed := w.closed
		failed := w.err != nil
		w.mu.Unlock()

		if len(batch) > 0 && !failed {
			if err := w.conn.WriteFrames(batch...); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				w.onError(err)
			}
		}
		w.mu.Lock()
		for i, b := range batch {
			if cap(b) <= maxPooledBuf && len(w.free) < maxFreeBufs {
				w.free = append(w.free, b[:0])
			}
			batch[i] = nil
		}
		w.mu.Unlock()
		if closed {
			return
		}
	}
}

// writeErr returns the first write error.
func (w *writer) writeErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
