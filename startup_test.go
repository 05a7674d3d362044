package mcpengine_test

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/supervisor"
)

// connectUnbounded runs Connect with no deadline of its own, as an
// embedder with context.Background() does; the test's guard is the only
// bound, and reaching it is the failure this test is about.
func connectUnbounded(t *testing.T, e *mcpengine.Engine, srv mcpengine.ServerConfig) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		s, err := e.Connect(context.Background(), mcpengine.SessionConfig{Name: "broken", Server: srv})
		if s != nil {
			_ = s.Close(context.Background())
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatal("Connect with context.Background() never returned for a server that dies before its handshake")
		return nil
	}
}

// A server whose command runs but dies before answering initialize, every
// time, is a configuration error: Connect fails after StartAttempts tries
// with a *StartupError naming the exit status and the stderr line that
// says why, and matching ErrUnreachable (before: Connect retried forever).
func TestConnectFailsForAServerThatDiesBeforeItsHandshake(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	err := connectUnbounded(t, e, mcpengine.ServerConfig{Command: "sh", Args: []string{"-c", "echo starting >&2; echo 'Error: no config at /etc/x.json' >&2; exit 7"}})
	require.Error(t, err)
	assert.ErrorIs(t, err, mcpengine.ErrUnreachable)
	var se *mcpengine.StartupError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 3, se.Attempts)
	assert.Equal(t, "Error: no config at /etc/x.json", se.Stderr)
	if runtime.GOOS == "linux" {
		assert.Contains(t, se.Reason, "exited with code 7")
	}
	assert.Contains(t, err.Error(), "Error: no config at /etc/x.json")
}

// The same against the command a new user typed: node with a script that
// does not exist. The error names Node's own line, not its stack's tail.
func TestConnectFailsForNodeWithAMissingScript(t *testing.T) {
	node, lookErr := exec.LookPath("node")
	if lookErr != nil {
		t.Skip("node is not installed")
	}
	e := newEngine(t, mcpengine.Config{})
	err := connectUnbounded(t, e, mcpengine.ServerConfig{Command: node, Args: []string{"/nonexistent.js"}})
	var se *mcpengine.StartupError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, mcpengine.ErrUnreachable)
	assert.Contains(t, se.Stderr, "Error: Cannot find module '/nonexistent.js'")
	if runtime.GOOS == "linux" {
		assert.Contains(t, se.Reason, "exited with code 1")
	}
}

// RetryInitialConnect keeps the old patience: the caller's ctx bounds the
// wait, and its error still says what the last try saw.
func TestRetryInitialConnectKeepsTryingADyingServer(t *testing.T) {
	e := newEngine(t, mcpengine.Config{RetryInitialConnect: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "patient", Server: mcpengine.ServerConfig{Command: "sh", Args: []string{"-c", "exit 7"}}})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var se *mcpengine.StartupError
	assert.False(t, errors.As(err, &se), "no StartupError when asked to keep trying: %v", err)
}

// A server that answers calls and then exits is restarted at the first
// delay each time, not as a crash loop, until its restarts within the
// Period reach the Intensity (before: every restart in a row counted,
// whatever the server did in between, so the delays grew to Max).
func TestAServerThatServedCallsIsRestartedAtTheFirstDelay(t *testing.T) {
	srv := demoserver.New(demoserver.Options{ExitAfter: 3})
	e := newEngine(t, mcpengine.Config{Backoff: supervisor.Policy{
		Initial: 5 * time.Millisecond, Max: time.Minute, Multiplier: 4, Jitter: -1,
		Intensity: 3, Period: time.Hour,
	}})
	s, err := e.Connect(testCtx(t, 30*time.Second), mcpengine.SessionConfig{Name: "exits", Dialer: memoryDemo(t, srv)})
	require.NoError(t, err)
	attempts := make(chan int, 64)
	stop := s.WatchState(func(c mcpengine.StateChange) {
		if c.To == mcpengine.StateBackoff {
			attempts <- c.Attempt
		}
	})
	defer stop()
	var seen []int
	ctx := testCtx(t, 60*time.Second)
	for len(seen) < 5 {
		_, _ = s.CallTool(ctx, "echo", map[string]any{"text": "hi"})
		for drained := false; !drained; {
			select {
			case a := <-attempts:
				seen = append(seen, a)
			default:
				drained = true
			}
		}
		require.NoError(t, ctx.Err(), "restarts seen: %v", seen)
	}
	assert.Equal(t, []int{1, 1, 1, 2, 3}, seen[:5], "three restarts at the first delay, then the intensity is reached")
}
