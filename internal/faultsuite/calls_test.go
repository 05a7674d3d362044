//go:build linux

package faultsuite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine"
)

// echoAll runs n concurrent callers, each calling echo rounds times with
// its own text, and checks that each gets its own text back: no answer
// reaches the wrong caller. A call may fail only with an error allowed
// says is expected (the fault's own); failures are counted and timed.
func echoAll(f *fault, s *mcpengine.Session, tag string, n, rounds int, allowed func(error) bool) (failed int) {
	t := f.t
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		// Owner: echoAll; exits after its rounds, each bounded by its ctx.
		go func() {
			defer wg.Done()
			for r := range rounds {
				want := fmt.Sprintf("%s-%d-%d", tag, i, r)
				ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
				start := time.Now()
				res, err := s.CallTool(ctx, "echo", map[string]any{"text": want})
				cancel()
				if err != nil {
					f.tookErr(time.Since(start))
					if allowed == nil || !allowed(err) {
						t.Errorf("caller %d: %v", i, err)
					}
					mu.Lock()
					failed++
					mu.Unlock()
					continue
				}
				if assert.NotEmpty(t, res.Content, "caller %d", i) {
					assert.Equal(t, want, res.Content[0].Text, "caller %d got another caller's answer", i)
				}
			}
		}()
	}
	wg.Wait()
	return failed
}

// deadlineCalls runs n concurrent calls of tool (args) that the server
// never answers in time, each with a ctx deadline of d, and checks that
// each returns by its deadline (plus slack) with a timeout error that
// also matches context.DeadlineExceeded. It records each time to error.
func deadlineCalls(f *fault, s *mcpengine.Session, n int, d time.Duration, tool string, args func(i int) map[string]any) {
	t := f.t
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		// Owner: deadlineCalls; exits when the call returns (by its
		// deadline, or by the test's timeout if the engine is broken).
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			start := time.Now()
			_, err := s.CallTool(ctx, tool, args(i))
			took := time.Since(start)
			f.tookErr(took)
			assert.ErrorIs(t, err, mcpengine.ErrTimeout, "call %d", i)
			assert.ErrorIs(t, err, context.DeadlineExceeded, "call %d", i)
			var te *mcpengine.TimeoutError
			assert.True(t, errors.As(err, &te), "call %d: a *TimeoutError, got %T %v", i, err, err)
			assert.Less(t, took, d+slack, "call %d waited past its deadline", i)
		}()
	}
	wg.Wait()
}

// timedCall calls tool and returns its error and how long it took.
func timedCall(s *mcpengine.Session, ctx context.Context, tool string, args map[string]any, opts ...mcpengine.CallOption) (*callResult, time.Duration) {
	start := time.Now()
	res, err := s.CallTool(ctx, tool, args, opts...)
	r := &callResult{err: err}
	if err == nil && len(res.Content) > 0 {
		r.text = res.Content[0].Text
	}
	return r, time.Since(start)
}

type callResult struct {
	text string
	err  error
}

func errorIs(err, target error) bool { return errors.Is(err, target) }

// waitRequests waits until s has sent n requests in all (the calls
// started by the test's goroutines are on the wire), for at most slack.
func waitRequests(t *testing.T, s *mcpengine.Session, n uint64) {
	t.Helper()
	deadline := time.Now().Add(slack)
	for s.Stats().Requests < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests sent after %v, want %d", s.Stats().Requests, slack, n)
		}
		time.Sleep(time.Millisecond) // the callers are sending: nothing to wait on
	}
}
