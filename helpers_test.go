package mcpengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/proctest"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/internal/testkit/engineserve"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

var (
	fastBackoff = testkit.FastBackoff()
	testCtx     = testkit.Ctx
)

// newEngine returns an engine closed at the end of the test.
func newEngine(t *testing.T, cfg mcpengine.Config) *mcpengine.Engine {
	if cfg.Backoff == (supervisor.Policy{}) {
		cfg.Backoff = fastBackoff
	}
	e := mcpengine.New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, e.Close(ctx))
	})
	return e
}

// memoryDemo returns a dialer to an in-process demo server; each dial is a
// new server session.
func memoryDemo(t *testing.T, srv *demoserver.Server) transport.Dialer {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return memory.NewDialer("demo", func(conn transport.Conn) { _ = srv.Serve(ctx, conn) })
}

// engineServe is the demo server as users run it: `engine serve` with the
// given flags, a real subprocess speaking stdio.
func engineServe(args ...string) mcpengine.ServerConfig {
	return engineserve.Config(engineBin, args...)
}

// servePID finds the pid of the one `engine serve` child of this test
// process (the engine starts servers as its direct children).
func servePID(t *testing.T) int {
	t.Helper()
	pids, err := proctest.Children(engineBin, "serve")
	require.NoError(t, err)
	require.Len(t, pids, 1, "one engine serve child")
	return pids[0]
}

func waitState(t *testing.T, s *mcpengine.Session, want mcpengine.State, within time.Duration) {
	t.Helper()
	changed := make(chan struct{}, 1)
	stop := s.WatchState(func(mcpengine.StateChange) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for s.State() != want {
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("session %s: state %v, want %v (last error: %v)", s.Name(), s.State(), want, s.LastError())
		}
	}
}

func mustSampling(blocks ...messages.ContentBlock) messages.RawMessage {
	raw, err := messages.EncodeSamplingContent(blocks...)
	if err != nil {
		panic(err)
	}
	return raw
}
