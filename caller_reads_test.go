package mcpengine_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Over a real stdio subprocess a caller alone on its session reads its own
// answers (actors/turns.go), and a caller blocked reading is failed
// promptly, like every other, when the server is killed.
func TestALoneCallerReadsItsOwnAnswersAndSurvivesKill9(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectServe(t, e)
	ctx := testCtx(t, 60*time.Second)

	before := s.Stats()
	byCallers, frames := before.FramesReadByCallers, before.FramesIn
	for range 200 {
		res, err := s.CallTool(ctx, "echo", map[string]any{"text": "x"})
		require.NoError(t, err)
		require.Equal(t, "x", res.Content[0].Text)
	}
	after := s.Stats()
	byCallers, frames = after.FramesReadByCallers-byCallers, after.FramesIn-frames
	t.Logf("%d of %d answers read by their callers", byCallers, frames)
	// Only a pause of over 2 ms between two calls (a busy machine) hands
	// the turn back to the reader goroutine, for one call.
	assert.GreaterOrEqual(t, byCallers*2, frames, "most answers are read by their callers")

	// The server's first progress notification says, without a sleep that
	// hopes, that the request reached it; the call then waits two
	// minutes, its caller blocked reading.
	errc := make(chan error, 1)
	reached := make(chan struct{}, 1)
	go func() { // owner: this test; returns when the call fails
		_, err := s.CallTool(ctx, "progress", map[string]any{"steps": 2, "intervalMs": 120000},
			mcpengine.WithProgress(func(messages.ProgressParams) {
				select {
				case reached <- struct{}{}:
				default:
				}
			}))
		errc <- err
	}()
	select {
	case <-reached:
	case err := <-errc:
		t.Fatalf("the call ended before the server's progress: %v", err)
	}
	pid := servePID(t)
	killed := time.Now()
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	select {
	case err := <-errc:
		require.ErrorIs(t, err, mcpengine.ErrConnectionLost)
		t.Logf("failed %v after kill -9", time.Since(killed))
	case <-time.After(30 * time.Second): // far from the 120 s the call would take
		t.Fatal("the caller reading its answer was not failed after kill -9")
	}
	waitState(t, s, mcpengine.StateReady, 10*time.Second)
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "back"})
	require.NoError(t, err)
	assert.Equal(t, "back", res.Content[0].Text)
}
