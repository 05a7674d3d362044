package actors

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// testWaiter is a deadlineWaiter that counts how often it was told.
type testWaiter struct {
	slot int32
	told atomic.Int32
	due  chan *testWaiter
}

func (w *testWaiter) deadlineSlot() *int32 { return &w.slot }
func (w *testWaiter) deadlineDue() {
	w.told.Add(1)
	if w.due != nil {
		w.due <- w
	}
}

// checkHeap fails unless q is a min-heap whose waiters know their places.
func checkHeap(t *testing.T, q *deadlineQueue) {
	t.Helper()
	for i, e := range q.heap {
		if got := *e.w.deadlineSlot(); got != int32(i+1) {
			t.Fatalf("entry %d thinks it is at %d", i, got)
		}
		if i > 0 && q.heap[(i-1)/2].at > e.at {
			t.Fatalf("entry %d is due before its parent", i)
		}
	}
}

// Random sets, moves and removals keep the heap ordered and every
// waiter's place right; a waiter removed has no place.
func TestDeadlineQueueKeepsItsHeapAndPlaces(t *testing.T) {
	var q deadlineQueue
	t.Cleanup(func() {
		if q.timer != nil {
			q.timer.Stop()
		}
	})
	far := monoNow() + time.Hour // never due during the test
	ws := make([]*testWaiter, 200)
	for i := range ws {
		ws[i] = &testWaiter{}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		w := ws[r.IntN(len(ws))]
		switch r.IntN(3) {
		case 0, 1:
			before := w.slot
			var was time.Duration
			if before > 0 {
				was = q.heap[before-1].at
			}
			at := far + time.Duration(r.IntN(1000))*time.Millisecond
			q.set(w, at)
			got := q.heap[w.slot-1].at
			if before > 0 && got != min(was, at) || before == 0 && got != at {
				t.Fatalf("queued at %v after set(%v), was %v", got, at, was)
			}
		case 2:
			q.remove(w)
			if w.slot != 0 {
				t.Fatal("a removed waiter still has a place")
			}
		}
		checkHeap(t, &q)
	}
	for _, w := range ws {
		if w.told.Load() != 0 {
			t.Fatal("a waiter was told before its deadline")
		}
	}
}

// Waiters whose deadline passed are told once each, and leave the queue;
// the others stay.
func TestDeadlineQueueTellsEachDueWaiterOnce(t *testing.T) {
	var q deadlineQueue
	t.Cleanup(func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.timer != nil {
			q.timer.Stop()
		}
	})
	due := make(chan *testWaiter, 100)
	later := monoNow() + time.Hour
	var soon, notYet []*testWaiter
	for i := range 100 {
		w := &testWaiter{due: due}
		q.set(w, later)
		if i%2 == 0 {
			soon = append(soon, w)
		} else {
			notYet = append(notYet, w)
		}
	}
	for i, w := range soon { // moved sooner: due now
		q.set(w, monoNow()-time.Duration(i)*time.Millisecond)
	}
	ctx := testkit.Ctx(t, 30*time.Second)
	for range soon {
		select {
		case <-due:
		case <-ctx.Done():
			t.Fatal("not every due waiter was told")
		}
	}
	for _, w := range soon {
		if w.told.Load() != 1 || w.slot != 0 {
			t.Fatalf("a due waiter was told %d times, place %d", w.told.Load(), w.slot)
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.heap) != len(notYet) {
		t.Fatalf("%d waiters queued, want the %d not due", len(q.heap), len(notYet))
	}
	for _, w := range notYet {
		if w.told.Load() != 0 || w.slot == 0 {
			t.Fatal("a waiter not due was told or left the queue")
		}
	}
}
