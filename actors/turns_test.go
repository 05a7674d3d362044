package actors

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
)

// hourGrace makes a turn left free while a request is pending hang for an
// hour instead of costing idleGrace: the tests below then fail on their
// deadlines rather than pass slowly.
func hourGrace(t *testing.T) {
	old := idleGrace
	idleGrace = time.Hour
	t.Cleanup(func() { idleGrace = old })
}

func toolCall(t *testing.T, name string, args map[string]any) *Call {
	raw, err := messages.Marshal(&messages.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return NewCall(messages.MethodToolsCall, raw)
}

// call is Session.Call's path: Send, then wait for Done within the deadline.
func call(ctx context.Context, h *Handle, c *Call) error {
	h.Send(ctx, c)
	select {
	case <-c.Done():
		return c.Err
	case <-ctx.Done():
		h.Cancel(c, ctx.Err())
		return ctx.Err()
	}
}

// Callers at every concurrency, some reading their answers themselves and
// some (posted without Send, like CallAsync) relying on the reader
// goroutine, with idleGrace an hour: every call is answered, so the turn is
// never left free while a request is pending.
func TestTurnsLeaveNoPendingCallUnread(t *testing.T) {
	hourGrace(t)
	h, stop := startSession(t, SessionConfig{Name: "turns"})
	defer stop()
	waitReady(t, h.Shared())

	for _, callers := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("callers=%d", callers), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, callers)
			for g := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 300 {
						c := toolCall(t, "echo", map[string]any{"text": "x"})
						if (g+i)%7 == 3 {
							// A caller that does not read: the reader must.
							h.Post(c)
							select {
							case <-c.Done():
							case <-ctx.Done():
								errs <- fmt.Errorf("caller %d, posted call %d: %w", g, i, ctx.Err())
								return
							}
							if c.Err != nil {
								errs <- c.Err
								return
							}
							continue
						}
						if err := call(ctx, h, c); err != nil {
							errs <- fmt.Errorf("caller %d, call %d: %w", g, i, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
		})
	}
	st := h.Shared().Stats()
	assert.Positive(t, st.FramesReadByCallers.Load(), "callers read answers themselves")
	t.Logf("%d of %d frames read by callers", st.FramesReadByCallers.Load(), st.FramesIn.Load())
}

// One caller at a time reads nearly all of its answers itself.
func TestALoneCallerReadsItsOwnAnswers(t *testing.T) {
	hourGrace(t)
	h, stop := startSession(t, SessionConfig{Name: "alone"})
	defer stop()
	waitReady(t, h.Shared())
	st := h.Shared().Stats()
	before, framesBefore := st.FramesReadByCallers.Load(), st.FramesIn.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range 200 {
		require.NoError(t, call(ctx, h, toolCall(t, "echo", map[string]any{"text": "x"})))
	}
	byCallers, frames := st.FramesReadByCallers.Load()-before, st.FramesIn.Load()-framesBefore
	assert.Equal(t, uint64(200), frames)
	// The reader goroutine holds the turn until a caller asks for it: it
	// reads the first answer and then frees the turn, so from the second
	// call on the caller reads, except when the reader goroutine was still
	// delivering an answer as the next call went out (it then reads that
	// one too: a preemption on a busy machine did so for 3 of 200).
	t.Logf("%d of %d answers read by their callers", byCallers, frames)
	assert.GreaterOrEqual(t, byCallers*2, frames, "most answers are read by their callers")
	assert.Less(t, byCallers, frames, "the first answer is the reader goroutine's")
}

// A caller blocked reading the connection for its answer is woken by every
// other way its call can end.
func TestACallerBlockedReadingIsWokenWhenItsCallEnds(t *testing.T) {
	hourGrace(t)
	h, stop := startSession(t, SessionConfig{Name: "woken"})
	defer stop()
	waitReady(t, h.Shared())
	sleep := func() *Call { return toolCall(t, "sleep", map[string]any{"ms": 60000}) }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	echo := func() {
		t.Helper()
		require.NoError(t, call(ctx, h, toolCall(t, "echo", map[string]any{"text": "x"})))
	}

	t.Run("request timeout", func(t *testing.T) {
		echo()
		c := sleep()
		c.Timeout = 100 * time.Millisecond
		start := time.Now()
		err := call(ctx, h, c)
		var te *mcperr.TimeoutError
		require.ErrorAs(t, err, &te)
		assert.Less(t, time.Since(start), 5*time.Second)
		echo()
	})
	t.Run("ctx deadline", func(t *testing.T) {
		echo()
		cctx, ccancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer ccancel()
		start := time.Now()
		err := call(cctx, h, sleep())
		require.Error(t, err)
		assert.Less(t, time.Since(start), 5*time.Second)
		echo()
	})
	t.Run("ctx cancelled", func(t *testing.T) {
		echo()
		cctx, ccancel := context.WithCancel(ctx)
		time.AfterFunc(100*time.Millisecond, ccancel)
		start := time.Now()
		err := call(cctx, h, sleep())
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 5*time.Second)
		echo()
	})
	t.Run("session closed", func(t *testing.T) {
		echo()
		c := sleep()
		errc := make(chan error, 1)
		go func() { errc <- call(ctx, h, c) }()
		sh := h.Shared()
		testkit.Eventually(t, 10*time.Second, func() bool {
			r := sh.conn.reader.Load()
			return sh.conn.pendingCalls.Load() == 1 && r != nil && r.turn.Load() == turnCaller
		}, "the sleep call was never sent with its caller reading")
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		require.NoError(t, h.Close(cctx))
		select {
		case err := <-errc:
			var closed *mcperr.ClosedError
			require.ErrorAs(t, err, &closed)
		case <-ctx.Done():
			t.Fatal("the caller reading its answer was not woken by Close")
		}
	})
}
