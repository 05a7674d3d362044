package httpcore

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/transport"
)

type record struct {
	mu     sync.Mutex
	events []string
}

func (r *record) deliver(in *transport.Inbound) {
	r.mu.Lock()
	r.events = append(r.events, "d:"+string(in.Frame))
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
	assert.True(t, s.Deliver(&transport.Inbound{Frame: []byte("a")}))
	assert.True(t, s.Deliver(&transport.Inbound{Frame: []byte("b")}))
	s.Start(r.deliver, r.fail)
	assert.True(t, s.Deliver(&transport.Inbound{Frame: []byte("c")}))
	assert.Equal(t, []string{"d:a", "d:b", "d:c"}, r.get())
}

func TestSinkFailsOnceAndDeliversNothingAfter(t *testing.T) {
	var s Sink
	var r record
	s.Start(r.deliver, r.fail)
	assert.True(t, s.Fail(errors.New("one")))
	assert.False(t, s.Fail(errors.New("two")))
	assert.False(t, s.Deliver(&transport.Inbound{Frame: []byte("late")}))
	assert.Equal(t, []string{"f:one"}, r.get())
	assert.EqualError(t, s.Err(), "one")
}

func TestSinkFailureBeforeStartIsReportedAtStartAfterEarlierFrames(t *testing.T) {
	var s Sink
	var r record
	s.Deliver(&transport.Inbound{Frame: []byte("early")})
	s.Fail(errors.New("gone"))
	s.Start(r.deliver, r.fail)
	assert.Equal(t, []string{"d:early", "f:gone"}, r.get())
}

func TestSinkCallsNothingAfterClose(t *testing.T) {
	var s Sink
	var r record
	s.Start(r.deliver, r.fail)
	s.Close()
	assert.False(t, s.Deliver(&transport.Inbound{Frame: []byte("x")}))
	assert.False(t, s.Fail(errors.New("x")))
	assert.Empty(t, r.get())
	assert.NoError(t, s.Err())

	var unstarted Sink
	unstarted.Deliver(&transport.Inbound{Frame: []byte("x")})
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
				s.Deliver(&transport.Inbound{Frame: []byte("x")})
			}
		})
	}
	wg.Wait()
	assert.Len(t, r.get(), 800)
}
