package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// The live view says what the run hides otherwise: a generator behind its
// schedule, sessions the engine is reconnecting, and no server CPU figure
// for a server it did not start (a URL target), rather than 0%.
func TestLiveViewShowsBehindReconnectsAndNoServerCPUForURLTargets(t *testing.T) {
	pr := loadgen.Progress{
		Elapsed: 3 * time.Second, Planned: 10 * time.Second, Calls: 100,
		Last:        loadgen.Point{ClientCPU: 40, Sessions: 2},
		Behind:      250,
		Supervision: loadgen.SupervisionStats{Reconnects: 3, Restarts: 3, NotReady: 1500 * time.Millisecond, NotReadyNow: 1},
	}
	view := strings.Join(liveView(pr), "\n")
	assert.Contains(t, view, "BEHIND: 250 calls due not started")
	assert.Contains(t, view, "3 reconnects (3 restarts)")
	assert.Contains(t, view, "NOT READY NOW: 1")
	assert.Contains(t, view, "server n/a")
	assert.NotContains(t, view, "server 0%")

	line := progressLine(pr)
	assert.Contains(t, line, "behind 250")
	assert.Contains(t, line, "reconnects 3, not ready now 1")
}
