package httpcore

import (
	"sync"
	"testing"
	"testing/synctest"
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

// parkedWorkers is how many workers wait for a job.
func parkedWorkers[T any](s *Scheduler[T]) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.parked)
}

func TestSchedulerReusesAWorkerWhileOthersRunAndKeepsNoneOnceIdle(t *testing.T) {
	release := map[string]chan struct{}{"long": make(chan struct{}), "short": make(chan struct{}), "next": make(chan struct{})}
	ran := make(chan string, 3)
	s := NewScheduler(func(name string) {
		<-release[name]
		ran <- name
	})
	require.True(t, s.Submit("long", false))
	require.True(t, s.Submit("short", false))
	close(release["short"])
	assert.Equal(t, "short", <-ran)
	// "long" still runs, so the worker of "short" waits for the next job
	// instead of exiting.
	require.Eventually(t, func() bool { return parkedWorkers(s) == 1 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, 2, s.Running())

	require.True(t, s.Submit("next", false))
	assert.Zero(t, parkedWorkers(s), "the parked worker took the job")
	assert.Equal(t, 2, s.Running(), "no new goroutine")
	close(release["next"])
	assert.Equal(t, "next", <-ran)
	require.Eventually(t, func() bool { return parkedWorkers(s) == 1 }, 10*time.Second, time.Millisecond)

	// The last job done lets every parked worker go: an idle scheduler
	// holds no goroutine, without Close.
	close(release["long"])
	assert.Equal(t, "long", <-ran)
	require.Eventually(t, func() bool { return s.Running() == 0 }, 10*time.Second, time.Millisecond)
	s.Close()
	s.Wait()
}

func TestSchedulerCloseLetsParkedWorkersGo(t *testing.T) {
	release := make(chan struct{})
	done := make(chan struct{}, 1)
	s := NewScheduler(func(block bool) {
		if block {
			<-release
		}
		done <- struct{}{}
	})
	require.True(t, s.Submit(true, false))
	require.True(t, s.Submit(false, false))
	<-done
	require.Eventually(t, func() bool { return parkedWorkers(s) == 1 }, 10*time.Second, time.Millisecond)
	s.Close()
	assert.Zero(t, parkedWorkers(s))
	close(release)
	s.Wait()
	assert.Zero(t, s.Running())
}

func TestSchedulerRunHereRunsOnTheCallerUnlessABarrierRunsOrItClosed(t *testing.T) {
	release := make(chan struct{})
	ranBy := make(chan string, 4)
	s := NewScheduler(func(name string) {
		if name == "barrier" {
			<-release
		}
		ranBy <- name
	})
	require.True(t, s.RunHere("here"))
	assert.Equal(t, "here", <-ranBy, "run before RunHere returned")
	assert.Zero(t, s.Running(), "no goroutine was started for it")

	require.True(t, s.Submit("barrier", true))
	assert.False(t, s.RunHere("behind"), "a job may not overtake a running barrier")
	close(release)
	assert.Equal(t, "barrier", <-ranBy)
	require.Eventually(t, func() bool { return s.RunHere("after") }, 10*time.Second, time.Millisecond)
	assert.Equal(t, "after", <-ranBy)

	s.Close()
	assert.False(t, s.RunHere("closed"))
	s.Wait()
	assert.Empty(t, ranBy)
}

func TestSchedulerWaitWaitsForAJobRunningHere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		s := NewScheduler(func(struct{}) {
			close(started)
			<-release
		})
		go s.RunHere(struct{}{}) // owned by the test: returns once released
		<-started
		s.Close()
		waited := make(chan struct{})
		go func() { // owned by the test: returns when Wait does
			s.Wait()
			close(waited)
		}()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatal("Wait returned while a job ran")
		default:
		}
		close(release)
		<-waited
	})
}
