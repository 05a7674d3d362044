package httpcore

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gated is a job that reports its start and waits to be released.
type gated struct {
	name    string
	started chan string
	release chan struct{}
}

func TestSchedulerKeepsBarriersInOrderAndRunsTheRestConcurrently(t *testing.T) {
	started := make(chan string, 16)
	releases := map[string]chan struct{}{}
	for _, n := range []string{"r1", "n1", "r2", "r3", "n2", "r4"} {
		releases[n] = make(chan struct{})
	}
	s := NewScheduler(func(g gated) {
		g.started <- g.name
		<-g.release
	})
	submit := func(name string, barrier bool) {
		require.True(t, s.Submit(gated{name, started, releases[name]}, barrier))
	}
	submit("r1", false)
	submit("n1", true)
	submit("r2", false)
	submit("r3", false)
	submit("n2", true)
	submit("r4", false)

	next := func() string {
		select {
		case n := <-started:
			return n
		case <-time.After(10 * time.Second):
			t.Fatal("nothing started")
		}
		return ""
	}
	// r1 and the barrier n1 start at once (n1 does not wait for requests
	// before it); nothing after n1 starts until n1 is done.
	assert.ElementsMatch(t, []string{"r1", "n1"}, []string{next(), next()})
	assert.Empty(t, started)
	assert.Equal(t, 2, s.Running())
	close(releases["n1"])
	// r2, r3 and the barrier n2 start; r4 waits for n2 (r1 still runs).
	assert.ElementsMatch(t, []string{"r2", "r3", "n2"}, []string{next(), next(), next()})
	assert.Empty(t, started)
	close(releases["n2"])
	assert.Equal(t, "r4", next())
	for _, n := range []string{"r1", "r2", "r3", "r4"} {
		close(releases[n])
	}
	s.Close()
	s.Wait()
	assert.Zero(t, s.Running())
}

func TestSchedulerCloseDropsQueuedJobsAndRefusesNewOnes(t *testing.T) {
	var mu sync.Mutex
	var ran []int
	release := make(chan struct{})
	s := NewScheduler(func(i int) {
		if i == 0 {
			<-release
		}
		mu.Lock()
		ran = append(ran, i)
		mu.Unlock()
	})
	s.Submit(0, true)
	s.Submit(1, false) // queued behind the barrier
	s.Close()
	assert.False(t, s.Submit(2, false))
	assert.False(t, s.Go(func() {}))
	close(release)
	s.Wait()
	assert.Equal(t, []int{0}, ran)
}

func TestSchedulerGoIsWaitedFor(t *testing.T) {
	s := NewScheduler(func(int) {})
	done := make(chan struct{})
	require.True(t, s.Go(func() { <-done }))
	assert.Equal(t, 1, s.Running())
	s.Close()
	close(done)
	s.Wait()
	assert.Zero(t, s.Running())
}
