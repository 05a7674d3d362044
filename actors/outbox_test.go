package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A connection with one frame at a time to write (one call in flight)
// reuses the outbox's backing arrays: queueing and writing a frame
// allocates nothing, while a burst's larger arrays are let go once idle.
func TestOutboxReusesSmallBatchesAndDropsBurstOnes(t *testing.T) {
	var o outbox
	f := &frame{}
	// push, then what a writer does; keep is recycle without the frame
	// pool, which allocates at random under the race detector.
	cycle := func(n int) {
		for range n {
			o.push(f)
		}
		if !o.claim() {
			t.Fatal("nothing to claim")
		}
		for {
			b, ok := o.take()
			if !ok {
				return
			}
			o.keep(b)
		}
	}
	cycle(1) // grows the arrays once
	assert.Zero(t, testing.AllocsPerRun(100, func() { cycle(1) }), "a call's frame costs no allocation in the outbox")

	cycle(100)
	assert.LessOrEqual(t, cap(o.queued.frames), keptBatch, "an idle outbox keeps no burst-sized array")
	assert.LessOrEqual(t, cap(o.spare.frames), keptBatch)
}
