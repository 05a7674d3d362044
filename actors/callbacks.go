package actors

import (
	"sync"
	"sync/atomic"
)

// callbackQueue runs user callbacks (notification subscribers, progress
// handlers, state watchers) one at a time, in the order they were posted, in
// a goroutine that exists only while there is work. No lock is held while a
// callback runs, and callbacks never run on the reader or inside Receive. A
// full queue drops the event and counts it rather than stalling the session.
type callbackQueue struct {
	mu      sync.Mutex
	queue   []func()
	running bool
	limit   int
	idle    *sync.Cond     // made by the first wait: most sessions never have one
	dropped *atomic.Uint64 // the session's Stats.CallbacksDropped
}

func newCallbackQueue(limit int, dropped *atomic.Uint64) *callbackQueue {
	return &callbackQueue{limit: limit, dropped: dropped}
}

// post queues fn; it reports false when the queue is full and fn was dropped.
func (d *callbackQueue) post(fn func()) bool {
	d.mu.Lock()
	if len(d.queue) >= d.limit {
		d.mu.Unlock()
		d.dropped.Add(1)
		return false
	}
	d.queue = append(d.queue, fn)
	start := !d.running
	d.running = true
	d.mu.Unlock()
	if start {
		// Owner: the session's callback queue. Exits as soon as the queue is
		// empty; wait() lets Close wait for it.
		go d.drain()
	}
	return true
}

func (d *callbackQueue) drain() {
	for {
		d.mu.Lock()
		if len(d.queue) == 0 {
			d.running = false
			d.queue = nil
			if d.idle != nil {
				d.idle.Broadcast()
			}
			d.mu.Unlock()
			return
		}
		batch := d.queue
		d.queue = nil
		d.mu.Unlock()
		for i, fn := range batch {
			runCallback(fn)
			batch[i] = nil
		}
	}
}

// runCallback keeps a panicking user callback from killing the queue's goroutine.
func runCallback(fn func()) {
	defer func() { _ = recover() }()
	fn()
}

// wait blocks until the queue is drained and the goroutine has exited, or
// until stop is closed.
func (d *callbackQueue) wait(stop <-chan struct{}) {
	finished := make(chan struct{})
	// Owner: this call. Exits when the queue goes idle; if stop fires
	// first, it exits at the queue's next idle point.
	go func() {
		d.mu.Lock()
		if d.running && d.idle == nil {
			d.idle = sync.NewCond(&d.mu)
		}
		for d.running {
			d.idle.Wait()
		}
		d.mu.Unlock()
		close(finished)
	}()
	select {
	case <-finished:
	case <-stop:
	}
}
