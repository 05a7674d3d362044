package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// In the open model the duration bounds the run: against a server slower
// than the rate, the calls due that no slot could start before the end
// are dropped and counted, not sent late after it.
func TestOpenModelDropsWhatCannotStartByTheEnd(t *testing.T) {
	const delay = 50 * time.Millisecond
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{Delay: delay}),
		Sessions: 1, Concurrency: 1, Rate: 1000, Duration: 200 * time.Millisecond, Method: messages.MethodPing,
	})
	require.NoError(t, err)
	s := res.Schedule
	require.NotNil(t, s)
	require.EqualValues(t, 200, s.Intended)
	// One slot, each call at least 50 ms: at most 200/50 calls start
	// within the duration, plus the one under way at the start.
	assert.LessOrEqual(t, s.Sent, int64(5), "no call starts after the duration")
	assert.Equal(t, s.Intended-s.Sent, s.Dropped, "every call due and not sent is dropped")
	assert.Equal(t, s.Dropped, s.Unsent)
	assert.True(t, anyContains(res.Warnings, "dropped"), "%q", res.Warnings)
	assert.Zero(t, res.CutOff)
}

// Calls under way when the run ends get GracefulStop to finish; those
// still running then are cut off and counted, not measured.
func TestGracefulStopCutsOffCallsStillUnderWay(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 1, Concurrency: 2, Rate: 20, Duration: 100 * time.Millisecond,
		Tool: "sleep", Args: messages.RawMessage(`{"ms": 3600000}`),
		Timeout: time.Hour, GracefulStop: 50 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.False(t, res.Interrupted, "the graceful stop, not the caller, ended the calls")
	assert.EqualValues(t, 2, res.CutOff, "both slots held a call that never returned")
	assert.Zero(t, res.Calls, "calls cut off are not measured")
}

// The live view's account: calls due and not started while every slot is
// busy.
func TestProgressSaysWhenTheGeneratorIsBehind(t *testing.T) {
	var behind int64
	_, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 1, Concurrency: 1, Rate: 200, Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond,
		Tool: "sleep", Args: messages.RawMessage(`{"ms": 1000}`),
		Progress: func(p Progress) { behind = max(behind, p.Behind) },
	})
	require.NoError(t, err)
	assert.Greater(t, behind, int64(10), "one slot held by a 1 s call while 200 calls/s fall due")
}

// A count is exact: the graceful stop does not cut the calls it counts.
func TestGracefulStopLeavesACountExact(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target: demoTarget(demoserver.Options{}),
		// Call 0 returns at once and its worker's next claim stops the
		// run while call 1 still sleeps.
		Sessions: 1, Concurrency: 2, Count: 2,
		Workload:     &Workload{Requests: []Request{{Tool: "sleep", Args: `{"ms": {{if eq .N 0}}0{{else}}300{{end}}}`}}},
		GracefulStop: time.Millisecond,
	})
	require.NoError(t, err)
	assert.EqualValues(t, 2, res.Calls)
	assert.Zero(t, res.CutOff)
}
