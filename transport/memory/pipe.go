package memory

import (
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/mcpengine/mcpengine/transport"
)

// Per-direction bounds on frames written but not yet read. A WriteFrames call
// that would exceed either blocks until the reader catches up or either end
// closes. A single frame larger than MaxQueuedBytes is admitted once the
// queue is empty, so no frame is ever refused for its size.
const (
	MaxQueuedFrames = 1024
	MaxQueuedBytes  = 16 << 20
)

// NewPipe returns the two ends of an in-process pipe. Frames written to one
// end are read, whole and in order, from the other.
//
// Close of either end makes the other end's ReadFrame return io.EOF once it
// has read every frame queued before the Close, and its WriteFrames return
// transport.ErrClosed; on the closed end itself both return
// transport.ErrClosed. Close unblocks pending calls on both ends. Frames are
// delivered as written: the pipe has no delimiter, so empty frames and
// newlines are carried as is.
func NewPipe() (client, server transport.Conn) {
	p := &pipe{}
	p.ab.init()
	p.ba.init()
	p.a = end{in: &p.ba, out: &p.ab}
	p.b = end{in: &p.ab, out: &p.ba}
	return &p.a, &p.b
}

var _ transport.ReadInterrupter = (*end)(nil)

// pipe allocates both directions and both ends at once.
type pipe struct {
	ab, ba queue // a→b and b→a
	a, b   end
}

// queue is one direction of a pipe.
type queue struct {
	mu       sync.Mutex
	readable sync.Cond // frames arrived, or the queue closed
	writable sync.Cond // frames left, or the queue closed
	frames   [][]byte  // unread frames are frames[head:]
	head     int
	bytes    int  // bytes in unread frames
	wclosed  bool // the writing end closed: read the rest, then io.EOF
	rclosed  bool // the reading end closed: writes fail, nothing is read
	// interrupt is set by InterruptRead and consumed by the next ReadFrame.
	interrupt bool

	// Parked callers, for tests to know a call is blocked.
	waitingReaders, waitingWriters int
}

func (q *queue) init() {
	q.readable.L = &q.mu
	q.writable.L = &q.mu
}

func (q *queue) admits(n int) bool {
	queued := len(q.frames) - q.head
	return queued < MaxQueuedFrames && (queued == 0 || q.bytes+n <= MaxQueuedBytes)
}

func (q *queue) pop() []byte {
	f := q.frames[q.head]
	q.frames[q.head] = nil
	q.head++
	q.bytes -= len(f)
	if q.head == len(q.frames) {
		q.head = 0
		if cap(q.frames) > 64 {
			q.frames = nil // drop the backing array a burst made us grow
		} else {
			q.frames = q.frames[:0]
		}
	}
	return f
}

// end is one side of a pipe; it implements transport.Conn and
// transport.ReadInterrupter.
type end struct {
	in, out *queue
	once    sync.Once
}

// ReadFrame returns the next frame written by the other end. The caller owns
// it. Reads may be taken in turns by several goroutines, one at a time.
func (e *end) ReadFrame() ([]byte, error) {
	q := e.in
	q.mu.Lock()
	waited := false
	for {
		switch {
		case q.rclosed:
			q.mu.Unlock()
			return nil, transport.ErrClosed
		case q.interrupt:
			q.interrupt = false
			q.mu.Unlock()
			return nil, transport.ErrReadInterrupted
		case q.head < len(q.frames):
			f := q.pop()
			q.mu.Unlock()
			q.writable.Signal() // after unlocking, so the writer need not wait for the lock
			if waited {
				runtime.Gosched() // see the package doc: fairness between pipes
			}
			return f, nil
		case q.wclosed:
			q.mu.Unlock()
			return nil, io.EOF
		}
		q.waitingReaders++
		q.readable.Wait()
		q.waitingReaders--
		waited = true
	}
}

// InterruptRead implements transport.ReadInterrupter: the ReadFrame in
// progress, or the next one, returns transport.ErrReadInterrupted.
func (e *end) InterruptRead() {
	q := e.in
	q.mu.Lock()
	q.interrupt = true
	q.mu.Unlock()
	q.readable.Broadcast()
}

// Buffered implements transport.ReadInterrupter.
func (e *end) Buffered() bool {
	q := e.in
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.head < len(q.frames)
}

// WriteFrames queues copies of the frames for the other end, in order,
// blocking while the queue is full. Frames queued before an error stay
// queued. Only one goroutine may call it at a time.
func (e *end) WriteFrames(frames ...[]byte) error {
	// Copy outside the lock, into one allocation; each frame's capacity is
	// clipped so that a reader appending to it cannot touch its neighbour.
	total := 0
	for _, f := range frames {
		total += len(f)
	}
	slab := make([]byte, 0, total)
	for _, f := range frames {
		slab = append(slab, f...)
	}

	q := e.out
	q.mu.Lock()
	if q.wclosed || q.rclosed {
		q.mu.Unlock()
		return transport.ErrClosed
	}
	off := 0
	for _, f := range frames {
		c := slab[off : off+len(f) : off+len(f)]
		off += len(f)
		for !q.admits(len(c)) {
			q.readable.Signal() // let the reader drain what this call queued so far
			q.waitingWriters++
			q.writable.Wait()
			q.waitingWriters--
			if q.wclosed || q.rclosed {
				q.mu.Unlock()
				return transport.ErrClosed
			}
		}
		q.frames = append(q.frames, c)
		q.bytes += len(c)
	}
	q.mu.Unlock()
	q.readable.Signal() // after unlocking, so the reader need not wait for the lock
	return nil
}

// Close closes this end: the other end reads what is queued, then io.EOF,
// and can no longer write. Frames queued for this end are dropped. Close never
// blocks and always returns nil; ctx is unused.
func (e *end) Close(context.Context) error {
	e.once.Do(func() {
		out := e.out
		out.mu.Lock()
		out.wclosed = true
		out.readable.Broadcast()
		out.writable.Broadcast()
		out.mu.Unlock()

		in := e.in
		in.mu.Lock()
		in.rclosed = true
		in.frames, in.head, in.bytes = nil, 0, 0
		in.readable.Broadcast()
		in.writable.Broadcast()
		in.mu.Unlock()
	})
	return nil
}
