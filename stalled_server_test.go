package mcpengine_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
)

// A server that stops reading its stdin (it stalls for 30 s): the pipe
// fills, yet every caller returns at its own deadline. Callers write their
// own requests only when the pipe has room; the rest waits on a worker.
func TestCallersNeverWaitOnAServerThatStoppedReading(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectServe(t, e, "--stall-after", "200ms", "--stall-for", "30s")
	ctx := testCtx(t, 30*time.Second)
	require.NoError(t, s.Ping(ctx)) // fixes the stall window: it starts 200 ms after the server got it
	// The server fixed the window when the ping reached it, before Ping
	// returned: 200 ms after that return the window has begun, however
	// slow the machine (a bound that follows from the order of events, not
	// a pause that hopes), and it lasts 30 s.
	pinged := time.Now()
	time.Sleep(time.Until(pinged.Add(200 * time.Millisecond)))

	text := strings.Repeat("x", 3000) // 200 of these are ~600 KB: far over a pipe's 64 KiB
	var wg sync.WaitGroup
	took := make(chan time.Duration, 200)
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			_, err := s.CallTool(ctx, "echo", map[string]any{"text": text}, mcpengine.WithTimeout(300*time.Millisecond))
			assert.ErrorIs(t, err, mcpengine.ErrTimeout)
			took <- time.Since(start)
		}()
	}
	wg.Wait()
	close(took)
	var worst time.Duration
	for d := range took {
		worst = max(worst, d)
	}
	// Not the 30 s of the stall: the bound only tells the two apart (200
	// callers with -race on a loaded machine take a few seconds).
	assert.Less(t, worst, 15*time.Second, "no caller waited on the blocked pipe")
}
