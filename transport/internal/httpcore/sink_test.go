package httpcore

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

type record struct {
	mu     sync.Mutex
	events []string
}

func (r *record) deliver(f []byte) {
	r.mu.Lock()
	r.events = append(r.events, "d:"+string(f))
	r.mu.Unlock()
}
func (r *record) fail(err error) {
	r.mu.Lock()
	r.events = append(r.events, "f:"+err.Error())
	r.mu.Unlock()
}
func (r *record) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func TestSinkKeepsFramesUntilStart(t *testing.T) {
	var s Sink
	var r record
	assert.True(t, s.Deliver([]byte("a")))
	assert.True(t, s.Deliver([]byte("b")))
	s.Start(r.deliver, r.fail)
	assert.True(t, s.Deliver([]byte("c")))
	assert.Equal(t, []string{"d:a", "d:b", "d:c"}, r.get())
}

func TestSinkFailsOnceAndDeliversNothingAfter(t *testing.T) {
	var s Sink
	var r record
	s.Start(r.deliver, r.fail)
	assert.True(t, s.Fail(errors.New("one")))
	assert.False(t, s.Fail(errors.New("two")))
	assert.False(t, s.Deliver([]byte("late")))
	assert.Equal(t, []string{"f:one"}, r.get())
	assert.EqualError(t, s.Err(), "one")
}

func TestSinkFailureBeforeStartIsReportedAtStartAfterEarlierFrames(t *testing.T) {
	var s Sink
	var r record
	s.Deliver([]byte("early"))
	s.Fail(errors.New("gone"))
	s.Start(r.deliver, r.fail)
	assert.Equal(t, []string{"d:early", "f:gone"}, r.get())
}

func TestSinkCallsNothingAfterClose(t *testing.T) {
	var s Sink
	var r record
	s.Start(r.deliver, r.fail)
	s.Close()
	assert.False(t, s.Deliver([]byte("x")))
	assert.False(t, s.Fail(errors.New("x")))
	assert.Empty(t, r.get())
	assert.NoError(t, s.Err())

	var unstarted Sink
	unstarted.Deliver([]byte("x"))
	unstarted.Close()
	unstarted.Start(r.deliver, r.fail)
	assert.Empty(t, r.get(), "Start after Close delivers nothing")
}

func TestSinkDeliversConcurrently(t *testing.T) {
	var s Sink
	var r record
	s.Start(r.deliver, r.fail)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { // returns after its 100 deliveries
			for range 100 {
				s.Deliver([]byte("x"))
			}
		})
	}
	wg.Wait()
	assert.Len(t, r.get(), 800)
}
