package actors

import "sync"

// outbox is the queue between the session actor (the only producer) and its
// writer actor (the only consumer). Frames appended while the writer is busy
// are written together by its next WriteFrames call: that is where writes
// coalesce. The lock is held only to swap slices, never during I/O.
type outbox struct {
	mu        sync.Mutex
	frames    [][]byte
	spare     [][]byte
	signalled bool // a flushSignal is on its way to the writer
}

// push appends a frame and reports whether the writer must be signalled.
func (o *outbox) push(frame []byte) bool {
	o.mu.Lock()
	o.frames = append(o.frames, frame)
	wake := !o.signalled
	o.signalled = true
	o.mu.Unlock()
	return wake
}

// take hands the writer everything queued so far.
func (o *outbox) take() [][]byte {
	o.mu.Lock()
	batch := o.frames
	o.frames = o.spare[:0]
	o.spare = nil
	o.signalled = false
	o.mu.Unlock()
	return batch
}

// recycle returns a written batch's backing array for reuse.
func (o *outbox) recycle(batch [][]byte) {
	for i := range batch {
		putFrameBuf(batch[i])
		batch[i] = nil
	}
	o.mu.Lock()
	if o.spare == nil && cap(batch) <= 1024 {
		o.spare = batch[:0]
	}
	o.mu.Unlock()
}

var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getFrameBuf() []byte { return (*framePool.Get().(*[]byte))[:0] }

func putFrameBuf(b []byte) {
	if cap(b) > 64<<10 {
		return // let huge frames go; keep the pool's footprint small
	}
	framePool.Put(&b)
}
