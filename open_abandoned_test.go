package mcpengine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

// TestOpenWhoseContextEndedLeavesNoSessionBehind: Open with a context
// that ended before the session was started returns the context's error
// and starts nothing. (A session started for a caller that had returned
// would connect, hold its connection and never be closed, not even by
// Engine.Close.) The registry starts sessions in the order asked, so
// opening the same name again right after shows whether an orphan took
// it.
func TestOpenWhoseContextEndedLeavesNoSessionBehind(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	dialer := memoryDemo(t, demoserver.New(demoserver.Options{}))
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := testCtx(t, 30*time.Second)
	abandoned := 0
	for i := 0; i < 200 && abandoned < 20; i++ {
		name := fmt.Sprint("s", i)
		s, err := e.Open(ended, mcpengine.SessionConfig{Name: name, Dialer: dialer})
		if err == nil {
			// The registry got to it first: the caller owns the session.
			require.NoError(t, s.Close(ctx))
			continue
		}
		require.ErrorIs(t, err, context.Canceled)
		abandoned++
		s, err = e.Open(ctx, mcpengine.SessionConfig{Name: name, Dialer: dialer})
		require.NoError(t, err, "the name %s is held by a session nobody owns", name)
		require.NoError(t, s.Close(ctx))
	}
	require.Positive(t, abandoned, "no Open gave up before its session was started")
}
