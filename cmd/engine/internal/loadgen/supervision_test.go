package loadgen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
)

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// A server that drops every connection after 20 requests: the engine
// reconnects each time, and the run says so (before, per_session
// connects stayed 1 and only the failed calls showed it).
func TestRunCountsReconnectsAndTimeNotReady(t *testing.T) {
	var seen SupervisionStats
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{CloseAfter: 20}),
		Sessions: 2, Concurrency: 2, Count: 200,
		Progress: func(p Progress) { seen = p.Supervision },
	})
	require.NoError(t, err)
	s := res.Supervision
	assert.GreaterOrEqual(t, s.Reconnects, int64(4), "200 calls at 20 a connection: several reconnects per session")
	assert.Positive(t, s.NotReadyS, "time spent reconnecting")
	var perSession int64
	for _, ps := range res.PerSession {
		assert.EqualValues(t, 1, ps.Connects, "the run connected each session once")
		assert.Positive(t, ps.Reconnects, "session %d", ps.Session)
		perSession += ps.Reconnects
	}
	assert.Equal(t, s.Reconnects, perSession)
	assert.LessOrEqual(t, seen.Reconnects, s.Reconnects, "the progress saw a part of them")
	assert.Positive(t, s.Restarts)
	assert.True(t, anyContains(res.Warnings, "reconnected"), "%q", res.Warnings)
}
