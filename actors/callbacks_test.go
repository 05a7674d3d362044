package actors

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCallbackQueueDropsAndCountsWhatAFullQueueCannotHold(t *testing.T) {
	var dropped atomic.Uint64
	d := newCallbackQueue(2, &dropped)
	running, release := make(chan struct{}), make(chan struct{})
	var ran []int
	assert.True(t, d.post(func() { close(running); <-release }))
	<-running // the drain goroutine holds the first callback; the queue is empty
	assert.True(t, d.post(func() { ran = append(ran, 1) }))
	assert.True(t, d.post(func() { ran = append(ran, 2) }))
	assert.False(t, d.post(func() { ran = append(ran, 3) }), "queue of 2 is full")
	close(release)
	d.wait(nil)
	assert.Equal(t, []int{1, 2}, ran, "kept callbacks run in order")
	assert.Equal(t, uint64(1), dropped.Load())
}
