package httpcore

import (
	"sync"
	"sync/atomic"
)

// Scheduler runs every outgoing frame on a goroutine of its own, so that a
// session's WriteFrames never waits on the network and an idle connection
// holds no goroutine at all. Order is kept where it matters: a barrier job
// (a notification: notifications/initialized must reach the server before
// the requests that follow it) starts only after every barrier before it
// has finished, and nothing submitted after a barrier starts before that
// barrier has finished. Other jobs (requests, responses) run concurrently.
//
// A goroutine whose job is done takes the next job submitted while other
// jobs of the connection still run, instead of exiting: a fresh goroutine
// grows its stack again through net/http's deep request path, which cost a
// busy session about a tenth of its CPU per call. The goroutines left
// waiting exit as soon as no job runs, so an idle connection still holds
// none.
//
// It also owns the connection's other goroutines (Go), so that Close can
// wait for all of them at once.
type Scheduler[T any] struct {
	run func(T)

	mu      sync.Mutex
	queue   []job[T] // waiting behind a barrier
	barrier bool     // a barrier job is running
	closed  bool
	busy    int           // jobs running
	parked  []chan job[T] // workers waiting for a job while others run; each channel has room for one
	wg      sync.WaitGroup
	running atomic.Int32
}

type job[T any] struct {
	v       T
	barrier bool
}

// NewScheduler returns a scheduler that calls run(v) on a goroutine of its
// own for every submitted v. run must return once the connection's context
// is cancelled.
func NewScheduler[T any](run func(T)) *Scheduler[T] {
	return &Scheduler[T]{run: run}
}

// Submit schedules v; barrier makes it a barrier job. It reports false,
// running nothing, once Close was called.
func (s *Scheduler[T]) Submit(v T, barrier bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if !s.barrier && len(s.queue) == 0 {
		s.startLocked(job[T]{v, barrier})
		return true
	}
	s.queue = append(s.queue, job[T]{v, barrier})
	return true
}

// startLocked starts one job, on the worker that parked last (its stack is
// the warmest) or on a new one; s.mu is held.
func (s *Scheduler[T]) startLocked(j job[T]) {
	if j.barrier {
		s.barrier = true
	}
	s.busy++
	if n := len(s.parked); n > 0 {
		next := s.parked[n-1]
		s.parked[n-1] = nil
		s.parked = s.parked[:n-1]
		next <- j // never blocks: a parked worker's channel is empty
		return
	}
	s.wg.Add(1)
	s.running.Add(1)
	next := make(chan job[T], 1)
	// Owner: the scheduler (its connection). Exits once its job is done
	// and no other job runs, or the scheduler is closed; a job returns
	// once the connection's context is cancelled, which Close does before
	// it waits for this goroutine through Wait.
	go s.work(j, next)
}

// work runs j, then each job handed to it through next, until parkLocked
// lets it go.
func (s *Scheduler[T]) work(j job[T], next chan job[T]) {
	defer s.wg.Done()
	defer s.running.Add(-1)
	for {
		s.run(j.v)
		s.mu.Lock()
		s.busy--
		// Offered first, so that the jobs a barrier held back reuse this
		// goroutine.
		s.parked = append(s.parked, next)
		if j.barrier {
			s.barrier = false
			s.pumpLocked()
		}
		if s.busy == 0 || s.closed {
			s.releaseParkedLocked()
		}
		s.mu.Unlock()
		var ok bool
		if j, ok = <-next; !ok {
			return
		}
	}
}

// releaseParkedLocked lets every parked worker exit; s.mu is held.
func (s *Scheduler[T]) releaseParkedLocked() {
	for _, next := range s.parked {
		close(next)
	}
	s.parked = nil
}

// pumpLocked starts queued jobs up to and including the next barrier.
func (s *Scheduler[T]) pumpLocked() {
	for !s.closed && !s.barrier && len(s.queue) > 0 {
		j := s.queue[0]
		s.queue[0] = job[T]{}
		s.queue = s.queue[1:]
		s.startLocked(j)
	}
	if len(s.queue) == 0 {
		s.queue = nil // let a burst's backing array go
	}
}

// RunHere runs v, a job that is not a barrier, on the calling goroutine
// if it may start at once (no barrier runs or waits; Submit would start
// it), and reports whether it ran. Wait waits for it as for the
// scheduler's own goroutines, and workers parked meanwhile stay parked
// for the jobs that follow.
func (s *Scheduler[T]) RunHere(v T) bool {
	s.mu.Lock()
	if s.closed || s.barrier || len(s.queue) > 0 {
		s.mu.Unlock()
		return false
	}
	s.busy++
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	s.run(v)
	s.mu.Lock()
	s.busy--
	if s.busy == 0 || s.closed {
		s.releaseParkedLocked()
	}
	s.mu.Unlock()
	return true
}

// Go runs fn on a goroutine the scheduler owns (Wait waits for it). It
// reports false, running nothing, once Close was called. fn must return
// once the connection's context is cancelled.
func (s *Scheduler[T]) Go(fn func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	s.running.Add(1)
	// Owner: the scheduler (its connection). Exits when fn returns, which
	// the connection's Close guarantees by cancelling its context.
	go func() {
		defer s.wg.Done()
		defer s.running.Add(-1)
		fn()
	}()
	return true
}

// Close refuses further work, drops queued jobs and lets parked workers
// go. The caller then cancels the context its goroutines watch and calls
// Wait.
func (s *Scheduler[T]) Close() {
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.releaseParkedLocked()
	s.mu.Unlock()
}

// Wait waits for every goroutine the scheduler started.
func (s *Scheduler[T]) Wait() { s.wg.Wait() }

// Running returns how many of the scheduler's goroutines are alive,
// parked ones included.
func (s *Scheduler[T]) Running() int { return int(s.running.Load()) }
