package actors

import (
	"sync"

	"github.com/mcpengine/mcpengine/transport"
)

// frame is one outgoing frame in a pooled buffer. The pointer travels with
// the bytes so that returning the buffer to the pool allocates nothing.
type frame struct {
	b []byte
	// msg is what the session knows of the message (all but its Frame,
	// which is b): a transport.RequestConn takes it instead of decoding b.
	msg transport.Message
}

var framePool = sync.Pool{New: func() any { return &frame{b: make([]byte, 0, 512)} }}

func getFrame() *frame {
	f := framePool.Get().(*frame)
	f.b = f.b[:0]
	return f
}

func putFrame(f *frame) {
	if f.msg.Kind != 0 {
		f.msg = transport.Message{} // hold no caller's params or headers
	}
	if cap(f.b) > 64<<10 {
		f.b = nil // let huge frames go; keep the pool's footprint small
		return
	}
	framePool.Put(f)
}

// outbox is the writer's mailbox: the session actor appends, the writer's
// drain loop takes everything queued at once. The lock is held only to swap
// slices, never during I/O. Each frame is kept twice: as the pooled *frame
// (to recycle) and as the bytes WriteFrames takes, so a drain allocates
// nothing.
type outbox struct {
	mu      sync.Mutex
	queued  batch
	spare   batch
	running bool // a goroutine is draining
}

type batch struct {
	frames []*frame
	bytes  [][]byte
}

// keptBatch is the largest backing array an idle outbox keeps. Dropping
// every one when the outbox empties (so that an idle connection holds
// none) cost two allocations per call at one call in flight; keeping a
// burst's would hold its memory for as long as the connection idles.
const keptBatch = 4

// shrink drops b's backing arrays if a burst grew them.
func (b *batch) shrink() {
	if cap(b.frames) > keptBatch {
		*b = batch{}
	}
}

// push appends a frame.
func (o *outbox) push(f *frame) {
	o.mu.Lock()
	o.queued.frames = append(o.queued.frames, f)
	o.queued.bytes = append(o.queued.bytes, f.b)
	o.mu.Unlock()
}

// pending reports whether frames are queued.
func (o *outbox) pending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.queued.frames) > 0
}

// claim reports whether the caller should drain: something is queued and
// no other goroutine is draining.
func (o *outbox) claim() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.running || len(o.queued.frames) == 0 {
		return false
	}
	o.running = true
	return true
}

// take hands the drain loop everything queued so far, or ok=false (and
// marks the drain finished) when nothing is.
func (o *outbox) take() (b batch, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queued.frames) == 0 {
		o.running = false
		o.queued.shrink()
		o.spare.shrink()
		return batch{}, false
	}
	b = o.queued
	o.queued = batch{frames: o.spare.frames[:0], bytes: o.spare.bytes[:0]}
	o.spare = batch{}
	return b, true
}

// giveBack puts a taken, unwritten batch back in front of what was queued
// since, and ends the claim, so that the next drain writes it first.
func (o *outbox) giveBack(b batch) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queued.frames = append(b.frames, o.queued.frames...)
	o.queued.bytes = append(b.bytes, o.queued.bytes...)
	o.running = false
}

// recycle returns a written batch's frames to the pool and keeps its
// backing arrays for the next batch.
func (o *outbox) recycle(b batch) {
	for i := range b.frames {
		putFrame(b.frames[i])
	}
	o.keep(b)
}

// keep clears a written batch and keeps its backing arrays as the spare.
func (o *outbox) keep(b batch) {
	clear(b.frames)
	clear(b.bytes)
	o.mu.Lock()
	if o.spare.frames == nil && cap(b.frames) <= 1024 {
		o.spare = batch{frames: b.frames[:0], bytes: b.bytes[:0]}
	}
	o.mu.Unlock()
}
