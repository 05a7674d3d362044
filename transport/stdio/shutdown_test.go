//go:build linux

package stdio

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

func TestCloseOfWellBehavedChildOnlyClosesStdin(t *testing.T) {
	c := startChild(t, childConfig(t, "echo"))
	require.NoError(t, c.Close(context.Background()))
	// It exited on its own (code 0, no signal): no signal was needed.
	assert.Equal(t, 0, c.ExitCode())
	assert.Equal(t, syscall.Signal(0), exitSignal(t, c))
}

func TestCloseSendsSIGTERMToChildIgnoringStdinEOF(t *testing.T) {
	cfg := childConfig(t, "ignore-stdin")
	cfg.ShutdownGrace = 100 * time.Millisecond
	c := startChild(t, cfg)
	require.Equal(t, "ready", readString(t, c))

	start := time.Now()
	require.NoError(t, c.Close(context.Background()))
	elapsed := time.Since(start)
	// SIGTERM ended it, after one grace period (timers never fire early),
	// and no SIGKILL was needed.
	assert.Equal(t, syscall.SIGTERM, exitSignal(t, c))
	assert.GreaterOrEqual(t, elapsed, cfg.ShutdownGrace)
	assert.Equal(t, -1, c.ExitCode())
}

func TestCloseSendsSIGKILLToChildIgnoringSIGTERM(t *testing.T) {
	cfg := childConfig(t, "ignore-term")
	cfg.ShutdownGrace = 100 * time.Millisecond
	c := startChild(t, cfg)
	require.Equal(t, "ready", readString(t, c)) // SIGTERM is ignored from now on

	start := time.Now()
	require.NoError(t, c.Close(context.Background()))
	elapsed := time.Since(start)
	// SIGKILL ended it, after both grace periods.
	assert.Equal(t, syscall.SIGKILL, exitSignal(t, c))
	assert.GreaterOrEqual(t, elapsed, 2*cfg.ShutdownGrace)
}

func TestCloseNeverWaitsBeyondItsContextDeadline(t *testing.T) {
	cfg := childConfig(t, "ignore-term")
	cfg.ShutdownGrace = time.Hour
	c := startChild(t, cfg)
	require.Equal(t, "ready", readString(t, c))

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	require.NoError(t, c.Close(ctx))
	// Killed at once when ctx ended, not after the hour of grace; the
	// bound is there only to tell those two apart.
	assert.Less(t, time.Since(start), time.Minute)
	assert.Equal(t, syscall.SIGKILL, exitSignal(t, c))
}

func TestCloseKillsGrandchildrenInTheProcessGroup(t *testing.T) {
	for _, after := range []string{"exit-on-eof", "ignore-stdin"} {
		t.Run(after, func(t *testing.T) {
			cfg := childConfig(t, "grandchild", childAfterEnv+"="+after)
			cfg.ShutdownGrace = 100 * time.Millisecond
			c := startChild(t, cfg)
			gpid, err := strconv.Atoi(readString(t, c))
			require.NoError(t, err)
			require.False(t, processGone(gpid), "grandchild runs before Close")
			awaitExit := exitWatch(t, gpid)

			require.NoError(t, c.Close(context.Background()))
			// Close sent the group SIGKILL and waited for stderr, which the
			// grandchild held, to reach EOF; its exit completes moments later.
			assert.True(t, awaitExit(5*time.Second), "grandchild %d survived Close", gpid)
			assert.True(t, processGone(gpid))
		})
	}
}

func TestCloseUnblocksPendingReadFrame(t *testing.T) {
	cfg := childConfig(t, "ignore-stdin") // holds stdout open and silent
	cfg.ShutdownGrace = 50 * time.Millisecond
	c := startChild(t, cfg)
	require.Equal(t, "ready", readString(t, c))

	readErr := make(chan error, 1)
	go func() { // owner: this test; exits when ReadFrame returns
		_, err := c.ReadFrame()
		readErr <- err
	}()
	require.NoError(t, c.Close(context.Background()))
	require.ErrorIs(t, <-readErr, transport.ErrClosed)
}

func TestCloseUnblocksPendingWriteFrames(t *testing.T) {
	cfg := childConfig(t, "ignore-stdin") // never reads: a 1 MiB frame fills the pipe
	cfg.ShutdownGrace = 50 * time.Millisecond
	c := startChild(t, cfg)
	require.Equal(t, "ready", readString(t, c))

	writeErr := make(chan error, 1)
	go func() { // owner: this test; exits when WriteFrames returns
		writeErr <- c.WriteFrames(make1MiBFrame())
	}()
	require.NoError(t, c.Close(context.Background()))
	require.ErrorIs(t, <-writeErr, transport.ErrClosed)
}

func make1MiBFrame() []byte {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = 'w'
	}
	return b
}

func TestCloseIsIdempotentAndConcurrentSafe(t *testing.T) {
	cfg := childConfig(t, "ignore-stdin")
	cfg.ShutdownGrace = 50 * time.Millisecond
	c := startChild(t, cfg)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() { // owner: this test; exits when Close returns
			defer wg.Done()
			errs[i] = c.Close(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, fmt.Sprint(i))
	}
	assert.NoError(t, c.Close(context.Background()))
	assert.NotNil(t, c.ProcessState())
}
