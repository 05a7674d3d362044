package mcpengine_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/transport"
)

func connectServe(t *testing.T, e *mcpengine.Engine, args ...string) *mcpengine.Session {
	t.Helper()
	s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{Name: t.Name(), Server: engineServe(args...)})
	require.NoError(t, err)
	return s
}

func TestKill9WithAThousandCallsInFlightFailsEveryCallerPromptlyAndRecovers(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectServe(t, e)
	ctx := testCtx(t, 60*time.Second)

	const n = 1000
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CallTool(ctx, "sleep", map[string]any{"ms": 120000})
			errs <- err
		}()
	}
	// The server reads frames in order: once a ping sent after all 1000
	// calls is answered, every call has reached it.
	for s.Stats().Requests < n {
		runtime.Gosched()
	}
	require.NoError(t, s.Ping(ctx))

	oldPID := servePID(t)
	killed := time.Now()
	require.NoError(t, syscall.Kill(oldPID, syscall.SIGKILL))
	wg.Wait()
	elapsed := time.Since(killed)
	close(errs)
	for err := range errs {
		require.ErrorIs(t, err, mcpengine.ErrConnectionLost)
		assert.False(t, mcpengine.SafeToRetry(err), "their fate on the server is unknown")
	}
	// Promptly, not when their 120 s sleeps end; the bound only tells the
	// two apart (a loaded machine with -race takes a second or two).
	assert.Less(t, elapsed, 30*time.Second, "every caller returns long before its call would have ended")
	t.Logf("1000 callers failed %v after kill -9", elapsed)

	waitState(t, s, mcpengine.StateReady, 10*time.Second)
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "back"})
	require.NoError(t, err)
	assert.Equal(t, "back", res.Content[0].Text)
	assert.NotEqual(t, oldPID, servePID(t), "a new server process")
	assert.GreaterOrEqual(t, s.Stats().Restarts, uint64(1))
}

func TestServerClosingStdoutIsTreatedAsEOFAndRestarted(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	// The era probe (server/discover, refused by this legacy server),
	// initialize and one ping are answered; the next request finds stdout
	// closed. The reconnect skips the probe: the engine remembers the era.
	s := connectServe(t, e, "--era", "legacy", "--close-after", "3")
	ctx := testCtx(t, 30*time.Second)
	require.NoError(t, s.Ping(ctx))
	err := s.Ping(ctx)
	require.ErrorIs(t, err, mcpengine.ErrConnectionLost)
	waitState(t, s, mcpengine.StateReady, 10*time.Second)
	require.NoError(t, s.Ping(ctx), "new connection, new budget of requests")
}

func TestUnsupportedVersionRetriesUnderBudgetThenClosesTyped(t *testing.T) {
	e := newEngine(t, mcpengine.Config{RestartBudget: 2})
	// --answer-version is initialize's fault: the handshake era.
	srv := engineServe("--era", "legacy", "--answer-version", "1999-01-01")
	_, err := e.Connect(testCtx(t, 30*time.Second), mcpengine.SessionConfig{Name: "old", Server: srv})
	require.Error(t, err)
	assert.ErrorIs(t, err, mcpengine.ErrVersionMismatch)
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
}

func TestGarbageAndInvalidUTF8AreCountedAndDiscardedWhileCallsSucceed(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectServe(t, e, "--garbage-every", "2")
	ctx := testCtx(t, 30*time.Second)
	for i := 0; i < 20; i++ {
		res, err := s.CallTool(ctx, "echo", map[string]any{"text": strconv.Itoa(i)})
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(i), res.Content[0].Text)
	}
	assert.GreaterOrEqual(t, s.Stats().InvalidFrames, uint64(10))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Equal(t, uint64(0), s.Stats().Restarts, "garbage never restarts the session")
}

func TestStderrFloodNeverStallsTheSession(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectServe(t, e, "--stderr-spam", "1048576")
	ctx := testCtx(t, 60*time.Second)
	for i := 0; i < 50; i++ { // 50 MiB of stderr in all
		require.NoError(t, s.Ping(ctx))
	}
}

func TestHundredMegabyteLineFailsTheCallNotTheEngine(t *testing.T) {
	e := newEngine(t, mcpengine.Config{MaxFrameBytes: 8 << 20})
	s := connectServe(t, e)
	ctx := testCtx(t, 60*time.Second)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := s.CallTool(ctx, "large", map[string]any{"bytes": 100 << 20})
	require.ErrorIs(t, err, mcpengine.ErrConnectionLost)
	var tooLarge *transport.FrameTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(50<<20), "the line is never buffered whole")

	waitState(t, s, mcpengine.StateReady, 20*time.Second)
	res, err := s.CallTool(ctx, "large", map[string]any{"bytes": 1 << 20})
	require.NoError(t, err)
	assert.Len(t, res.Content[0].Text, 1<<20)
}

func TestCloseShutsTheServerDownWithinTheCallersDeadline(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectServe(t, e)
	pid := servePID(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	require.NoError(t, s.Close(ctx))
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "server process reaped")
}

func TestAMissingCommandClosesTheSessionAfterTheRestartBudget(t *testing.T) {
	// With patience asked for; without it the first connect fails at once
	// (fail_fast_test.go).
	e := newEngine(t, mcpengine.Config{RestartBudget: 2, RetryInitialConnect: true})
	_, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{
		Name: "typo", Server: mcpengine.ServerConfig{Command: "no-such-mcp-server-binary"},
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
	assert.Contains(t, err.Error(), "no-such-mcp-server-binary")
}

func TestAServerThatDiesDuringTheHandshakeReportsItsStderr(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	srv := engineServe("--no-such-flag") // cobra prints "unknown flag" and exits 2
	s, err := e.Open(testCtx(t, 10*time.Second), mcpengine.SessionConfig{Name: "dies", Server: srv})
	require.NoError(t, err)
	ctx := testCtx(t, 10*time.Second)
	for {
		var se *mcpengine.ServerStderrError
		if errors.As(s.LastError(), &se) {
			assert.Contains(t, se.Stderr, "unknown flag")
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no stderr attached; last error: %v", s.LastError())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
