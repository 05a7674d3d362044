package actors

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// WorkerPool is the engine's pool of goroutines that run session mailbox
// batches and writer drains: goroutines that outlive one burst of work.
//
// protoactor's default dispatcher starts a new goroutine every time an idle
// mailbox wakes. With a fast server a session's mailbox goes idle between
// almost every call, and each new goroutine must grow its stack again to
// reach Receive → transmit: measured at 13–18% of client CPU per call, plus
// 4% for the goroutine starts. A worker keeps its grown stack, and handing
// it work is a channel send to a parked goroutine.
//
// This is safe only because nothing scheduled here blocks for long: session
// Receive never blocks, and a writer drain blocks only on a pipe write,
// which closing the connection ends. Schedule itself never blocks: with no
// idle worker it starts a new one. Idle workers exit after idleTimeout, so
// an engine whose sessions are all idle holds no worker at all.
type WorkerPool struct {
	live        atomic.Int32 // pooled workers alive
	max         int32
	work        chan func()
	stop        chan struct{}
	wg          sync.WaitGroup
	throughput  int
	idleTimeout time.Duration
	stopOnce    sync.Once
}

// DefaultWorkerIdle is how long a worker waits for more work before exiting.
const DefaultWorkerIdle = time.Second

// NewWorkerPool returns an empty pool; throughput is the number of messages a
// mailbox processes before yielding (protoactor's default is 300).
func NewWorkerPool(throughput int, idleTimeout time.Duration) *WorkerPool {
	if throughput <= 0 {
		throughput = 300
	}
	if idleTimeout <= 0 {
		idleTimeout = DefaultWorkerIdle
	}
	return &WorkerPool{
		work:        make(chan func()),
		stop:        make(chan struct{}),
		throughput:  throughput,
		idleTimeout: idleTimeout,
		max:         int32(max(8, 4*runtime.GOMAXPROCS(0))),
	}
}

// Schedule runs fn on an idle worker, or on a new one if none is idle.
func (w *WorkerPool) Schedule(fn func()) {
	select {
	case w.work <- fn: // unbuffered: succeeds only if a worker is waiting
		return
	default:
	}
	select {
	case <-w.stop:
		// After Stop (engine closed), late work still runs, on a goroutine
		// of its own, as protoactor's default dispatcher would.
		go fn()
		return
	default:
	}
	if w.live.Add(1) > w.max {
		// A burst (thousands of sessions connecting at once) would grow the
		// pool to one worker per session, and they would linger for the
		// idle timeout; past the cap, work runs on a one-shot goroutine as
		// protoactor's default dispatcher would.
		w.live.Add(-1)
		go fn()
		return
	}
	w.wg.Add(1)
	// Owner: the WorkerPool. Exits after idleTimeout without work, or
	// when Stop is called; Stop waits for it.
	go w.run(fn)
}

// Throughput implements actor.Dispatcher.
func (w *WorkerPool) Throughput() int { return w.throughput }

func (w *WorkerPool) run(fn func()) {
	defer w.wg.Done()
	defer w.live.Add(-1)
	fn()
	idle := time.NewTimer(w.idleTimeout)
	defer idle.Stop()
	for {
		select {
		case fn := <-w.work:
			fn()
			idle.Reset(w.idleTimeout)
		case <-idle.C:
			return
		case <-w.stop:
			return
		}
	}
}

// Stop makes idle workers exit and waits for busy ones to finish, or until
// done is closed (nil: wait as long as it takes). A busy worker is at most
// finishing a batch or a write that closing its connection ends.
func (w *WorkerPool) Stop(done <-chan struct{}) {
	w.stopOnce.Do(func() { close(w.stop) })
	finished := make(chan struct{})
	// Owner: this Stop. Exits when the last worker has exited.
	go func() {
		w.wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-done:
	}
}
