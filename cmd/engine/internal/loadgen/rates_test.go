package loadgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// A generator that cannot keep up reports the rate it sent at, not the
// one it was asked for: with one call in flight and a 20 ms server, two
// sends are at least 20 ms apart however fast the schedule (1,000/s), so
// at most one call per 20 ms is sent and the rest are dropped at the end.
func TestSendRateIsSendsOverTheTimeSendingTook(t *testing.T) {
	const delay = 20 * time.Millisecond
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{Delay: delay}),
		Sessions: 1, Concurrency: 1, Rate: 1000, Duration: 300 * time.Millisecond, Method: messages.MethodPing,
	})
	require.NoError(t, err)
	s := res.Schedule
	require.NotNil(t, s)
	require.EqualValues(t, 300, s.Sent+s.Dropped)
	// Two sends at least, so that the bound below is a number: with one,
	// it would be +Inf and the assertions could not fail.
	require.GreaterOrEqual(t, s.Sent, int64(2))
	most := float64(s.Sent) / (float64(s.Sent-1) * delay.Seconds())
	assert.LessOrEqual(t, s.SentPerSec, most, "sent/s over the time sending took (asked for 1000/s)")
	assert.LessOrEqual(t, res.CallsPerSecond, most)
	assert.Greater(t, s.SentPerSec, 0.0)
}

// The timeline's scheduled rate is an interval average, on the basis of
// the measured rates beside it: over a ramp, the calls it says fell due
// add up to the calls the schedule made due (the instantaneous rate at
// each interval's end would overstate a rising ramp).
func TestTimelineScheduleIsAnIntervalAverage(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 2, Concurrency: 4, Model: Open, StartLevel: 0,
		Stages:   []Stage{{Duration: 2 * time.Second, Target: 200}},
		Interval: 250 * time.Millisecond, Method: messages.MethodPing,
	})
	require.NoError(t, err)
	require.NotNil(t, res.Timeline)
	due, lastTarget := 0.0, 0.0
	for _, p := range res.Timeline.Points {
		due += p.DuePerSecond * p.Seconds
		assert.LessOrEqual(t, p.DuePerSecond, p.Target+1e-9, "a rising ramp's average over an interval is below its level at the end")
		lastTarget = p.Target
	}
	assert.InDelta(t, float64(res.Schedule.Intended), due, 1.5, "calls due, summed over the intervals")
	assert.Greater(t, lastTarget, 150.0)
}

func TestAbortJudgesLiveMetricsAfterTheGraceAndEnoughCalls(t *testing.T) {
	p99, err := ParseThreshold("p99<10ms")
	require.NoError(t, err)
	cpu, err := ParseThreshold("server_cpu_pct<50")
	require.NoError(t, err)
	assert.True(t, LiveMetric(p99.Metric))
	assert.False(t, LiveMetric(cpu.Metric), "server CPU is judged at the end only")

	cfg := &Config{Abort: []*Threshold{p99}, AbortGrace: 2 * time.Second}
	var l liveStats
	iv := newInterval(false)
	for range 50 {
		_ = iv.service.RecordValue(50_000) // 50 ms
	}
	iv.counts[OK] = 50
	l.add(iv, 1)
	assert.Empty(t, l.checkAbort(cfg, time.Second), "within the grace period")
	l.add(newInterval(false), 1.5)
	assert.Contains(t, l.checkAbort(cfg, 2500*time.Millisecond), "threshold p99<10ms crossed after 2.5s of measurement")

	var few liveStats
	iv = newInterval(false)
	_ = iv.service.RecordValue(50_000)
	iv.counts[OK] = 1
	few.add(iv, 5)
	assert.Empty(t, few.checkAbort(&Config{Abort: []*Threshold{p99}}, 5*time.Second), "one call is not a p99")
}
