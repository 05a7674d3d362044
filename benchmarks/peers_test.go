package benchmarks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

// TestPeerHarnessRunsEveryScenarioForEveryClient runs each row of
// peercompare for each client that speaks its version, with a handful of
// calls and sessions, so the harness cannot rot: every client connects at
// the row's pinned version (Open fails otherwise), every echo comes back
// checked, and every session, server, child process and goroutine is gone
// when Run returns. It measures nothing.
func TestPeerHarnessRunsEveryScenarioForEveryClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, sc := range peers.Scenarios {
		sc.Sessions = min(sc.Sessions, 3)
		for _, k := range peers.Kinds {
			if !k.SpeaksVersion(sc.Version) {
				continue
			}
			t.Run(sc.Name+"/"+k.Name, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				res, err := peers.Run(ctx, sc, k, 10, 2)
				require.NoError(t, err)
				assert.Equal(t, sc.Sessions, res.Sessions)
				switch {
				case sc.FirstCall:
					assert.Positive(t, res.FirstCall)
				case sc.Idle:
					assert.Positive(t, res.OpenAll)
				default:
					assert.Equal(t, 10, res.Calls)
					assert.Equal(t, sc.InFlight, res.InFlight)
				}
				assert.Empty(t, childProcesses(t), "server processes left after Run")
			})
		}
	}
}

// childProcesses lists this process's children (/proc/self/task/*/children).
func childProcesses(t *testing.T) []string {
	files, err := filepath.Glob("/proc/self/task/*/children")
	require.NoError(t, err)
	var pids []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended since the glob
		}
		pids = append(pids, strings.Fields(string(b))...)
	}
	return pids
}
