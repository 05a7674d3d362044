package mcpengine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

// A caller whose own deadline passes gets one answer, whichever clock fired
// first: the actor's sweep (the request's deadline is the ctx's) or the
// ctx's own timer seen by the caller's select. The deadlines below land on
// both sides of that race, and on the request timeout (WithTimeout) too.
func TestACallersDeadlineAlwaysGivesATimeoutErrorThatIsAlsoDeadlineExceeded(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectMemory(t, e, demoserver.New(demoserver.Options{}))
	never := map[string]any{"ms": 600000}

	const n = 200
	errs := make(chan error, 2*n+1)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(2)
		d := time.Duration(1+i%20) * time.Millisecond
		go func() { // Session.Call, sometimes with the request timeout equal to the deadline
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			var opts []mcpengine.CallOption
			if i%3 == 0 {
				opts = append(opts, mcpengine.WithTimeout(d))
			}
			_, err := s.Call(ctx, "tools/call", map[string]any{"name": "sleep", "arguments": never}, opts...)
			errs <- err
		}()
		go func() { // CallAsync: the ctx's deadline bounds the request
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			f := s.CallToolAsync(ctx, "sleep", never)
			_, err := f.Await(testCtx(t, 30*time.Second))
			errs <- err
		}()
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	errs <- s.Ping(expired) // already past: refused before it is sent, same error
	wg.Wait()
	close(errs)

	count := 0
	for err := range errs {
		count++
		require.ErrorIs(t, err, mcpengine.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		var te *mcpengine.TimeoutError
		require.ErrorAs(t, err, &te)
	}
	assert.Equal(t, 2*n+1, count)
	require.NoError(t, s.Ping(testCtx(t, 10*time.Second)), "the session is fine")
}

// A ctx cancelled (not expired) stays context.Canceled: the caller gave
// up, nothing timed out.
func TestACancelledCallerGetsContextCanceledNotATimeout(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := demoserver.New(demoserver.Options{})
	s := connectMemory(t, e, srv)
	ctx, cancel := context.WithCancel(testCtx(t, 30*time.Second))
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "sleep", map[string]any{"ms": 600000})
		done <- err
	}()
	require.NoError(t, srv.Await(testCtx(t, 10*time.Second), func(st demoserver.Stats) bool { return st.ToolCalls["sleep"] >= 1 }))
	cancel()
	err := <-done
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.False(t, errors.Is(err, mcpengine.ErrTimeout), "%v", err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}
