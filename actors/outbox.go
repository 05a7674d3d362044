package actors

import "sync"

// outbox is the writer's mailbox: the session actor appends, the writer's
// drain loop takes everything queued at once. The lock is held only to swap
// slices, never during I/O.
type outbox struct {
	mu      sync.Mutex
	frames  [][]byte
	spare   [][]byte
	running bool // a drain goroutine is active
}

// push appends a frame and reports whether a drain goroutine must start.
func (o *outbox) push(frame []byte) bool {
	o.mu.Lock()
	o.frames = append(o.frames, frame)
	start := !o.running
	o.running = true
	o.mu.Unlock()
	return start
}

// take hands the drain loop everything queued so far, or nil (and marks
// the drain finished) when nothing is.
func (o *outbox) take() [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.frames) == 0 {
		o.running = false
		o.frames = nil // an idle connection keeps no backing array
		o.spare = nil
		return nil
	}
	batch := o.frames
	o.frames = o.spare[:0]
	o.spare = nil
	return batch
}

// recycle returns a written batch's frames to the pool and keeps its
// backing array for the next batch.
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
