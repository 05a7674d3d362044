package actors

import (
	"sync"
	"time"
)

// deadlines is the process's one deadline timer: every session with
// requests pending is in it at its earliest deadline, and is sent a
// sweepDue when that passes. A timer per session would cost each busy
// session a timer (and one kept after its first call); this costs a slot
// in a shared heap while something is pending, and nothing after.
var deadlines deadlineQueue

// deadlineWaiter is what the queue holds: a session's place in it and how
// to tell it that its deadline passed.
type deadlineWaiter interface {
	// deadlineSlot is the waiter's 1-based position in the heap, 0 when
	// it is not queued. Guarded by deadlineQueue.mu.
	deadlineSlot() *int32
	// deadlineDue is called (without the queue's lock) once the
	// deadline passed and the waiter left the queue.
	deadlineDue()
}

type deadlineEntry struct {
	at time.Duration // since monoStart
	w  deadlineWaiter
}

// deadlineQueue is a min-heap of waiters by deadline and a timer for its
// head. The timer's callback runs on a goroutine of its own only when it
// fires; no goroutine waits meanwhile.
type deadlineQueue struct {
	mu      sync.Mutex
	heap    []deadlineEntry
	timer   *time.Timer
	timerAt time.Duration // when the timer fires (since monoStart); 0 when stopped
}

// set queues w for at, or moves it to at when that is sooner than where
// it is queued.
func (q *deadlineQueue) set(w deadlineWaiter, at time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	slot := w.deadlineSlot()
	if *slot > 0 {
		i := int(*slot) - 1
		if at >= q.heap[i].at {
			return
		}
		q.heap[i].at = at
		q.up(i)
	} else {
		q.heap = append(q.heap, deadlineEntry{at: at, w: w})
		*slot = int32(len(q.heap))
		q.up(len(q.heap) - 1)
	}
	q.armLocked()
}

// remove takes w out of the queue, if it is queued.
func (q *deadlineQueue) remove(w deadlineWaiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if slot := w.deadlineSlot(); *slot > 0 {
		q.removeAt(int(*slot) - 1)
	}
	if len(q.heap) == 0 && q.timerAt != 0 {
		q.timer.Stop()
		q.timerAt = 0
	}
}

// fire is the timer's callback: every waiter whose deadline passed leaves
// the queue and is told.
func (q *deadlineQueue) fire() {
	var due []deadlineWaiter
	q.mu.Lock()
	q.timerAt = 0
	now := monoNow()
	for len(q.heap) > 0 && q.heap[0].at <= now {
		due = append(due, q.heap[0].w)
		q.removeAt(0)
	}
	q.armLocked()
	q.mu.Unlock()
	for _, w := range due {
		w.deadlineDue()
	}
}

// armLocked makes the timer fire no later than the head's deadline. A
// timer set for later than the head is brought forward; one set sooner
// (its waiter left) fires early, and fire arms it again.
func (q *deadlineQueue) armLocked() {
	if len(q.heap) == 0 {
		return
	}
	head := q.heap[0].at
	if q.timerAt != 0 && q.timerAt <= head {
		return
	}
	q.timerAt = head
	d := max(head-monoNow(), 0)
	if q.timer == nil {
		q.timer = time.AfterFunc(d, q.fire)
		return
	}
	q.timer.Reset(d)
}

// removeAt takes the entry at i out of the heap.
func (q *deadlineQueue) removeAt(i int) {
	*q.heap[i].w.deadlineSlot() = 0
	last := len(q.heap) - 1
	if i != last {
		q.heap[i] = q.heap[last]
		*q.heap[i].w.deadlineSlot() = int32(i + 1)
	}
	q.heap[last] = deadlineEntry{}
	q.heap = q.heap[:last]
	if i < last {
		q.down(i)
		q.up(i)
	}
}

func (q *deadlineQueue) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if q.heap[parent].at <= q.heap[i].at {
			return
		}
		q.swap(i, parent)
		i = parent
	}
}

func (q *deadlineQueue) down(i int) {
	n := len(q.heap)
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < n && q.heap[c].at < q.heap[least].at {
				least = c
			}
		}
		if least == i {
			return
		}
		q.swap(i, least)
		i = least
	}
}

func (q *deadlineQueue) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	*q.heap[i].w.deadlineSlot() = int32(i + 1)
	*q.heap[j].w.deadlineSlot() = int32(j + 1)
}
