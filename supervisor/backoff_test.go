package supervisor

import (
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDelayStaysWithinJitterBoundsAndNeverExceedsMax(t *testing.T) {
	p := Policy{Initial: 100 * time.Millisecond, Max: 2 * time.Second, Multiplier: 2, Jitter: 0.5}
	cases := []struct {
		attempt int
		r       float64
		want    time.Duration
	}{
		{0, 0, 50 * time.Millisecond},             // 100ms * (1-0.5)
		{0, 0.5, 100 * time.Millisecond},          // centre
		{0, 0.9999999999, 150 * time.Millisecond}, // 100ms * (1+0.5), just under
		{1, 0.5, 200 * time.Millisecond},          // doubles
		{3, 0, 400 * time.Millisecond},            // 800ms * 0.5
		{4, 0.9999999999, 2 * time.Second},        // 1.6s*1.5 = 2.4s, capped after jitter
		{5, 0, 1600 * time.Millisecond},           // 3.2s * 0.5 is still under the cap
		{50, 0.9999999999, 2 * time.Second},       // huge attempt numbers stay finite and capped
		{1 << 30, 0.3, 2 * time.Second},           // no overflow
		{-3, 0.5, 100 * time.Millisecond},         // negative attempts count as the first
	}
	for _, c := range cases {
		got := Delay(p, c.attempt, c.r)
		assert.InDelta(t, float64(c.want), float64(got), float64(time.Millisecond), "attempt %d r %v", c.attempt, c.r)
		assert.LessOrEqual(t, got, p.Max)
	}
}

func TestDelayWithoutJitterIsExactlyExponential(t *testing.T) {
	p := Policy{Initial: time.Second, Max: time.Minute, Multiplier: 3, Jitter: -1}
	assert.Equal(t, time.Second, Delay(p, 0, 0.123))
	assert.Equal(t, 3*time.Second, Delay(p, 1, 0.9))
	assert.Equal(t, 9*time.Second, Delay(p, 2, 0))
	assert.Equal(t, time.Minute, Delay(p, 10, 0.5))
}

func TestZeroPolicyUsesDefaults(t *testing.T) {
	d := Delay(Policy{}, 0, 0.5)
	assert.Equal(t, DefaultPolicy.Initial, d)
}

func TestRestarterBudgetRunsOutOnlyForBudgetedFailures(t *testing.T) {
	r := NewRestarter(Policy{Initial: time.Millisecond, Max: time.Millisecond}, 3, func() float64 { return 0.5 })
	for i := 0; i < 3; i++ {
		_, ok := r.Next(RetryBudgeted)
		assert.True(t, ok, "attempt %d within budget", i)
	}
	_, ok := r.Next(RetryBudgeted)
	assert.False(t, ok, "budget spent")
	for i := 0; i < 100; i++ {
		_, ok := r.Next(Retry)
		assert.True(t, ok, "plain retries are unbounded")
	}
	r.Reset()
	_, ok = r.Next(RetryBudgeted)
	assert.True(t, ok, "reset restores the budget")
	_, ok = r.Next(Permanent)
	assert.False(t, ok)
}

type budgetErr struct{}

func (budgetErr) Error() string  { return "mismatch" }
func (budgetErr) Budgeted() bool { return true }

type permErr struct{}

func (permErr) Error() string   { return "refused" }
func (permErr) Permanent() bool { return true }

func TestClassifyReadsTheErrorsOwnDeclaration(t *testing.T) {
	assert.Equal(t, Retry, Classify(io.EOF))
	assert.Equal(t, Retry, Classify(errors.New("broken pipe")))
	assert.Equal(t, RetryBudgeted, Classify(budgetErr{}))
	assert.Equal(t, RetryBudgeted, Classify(errors.Join(errors.New("wrapped"), budgetErr{})))
	assert.Equal(t, Permanent, Classify(permErr{}))
}

// A connection that died before the policy's ResetAfter does not start the
// delays over: a crash loop right after the handshake keeps growing them,
// and keeps spending the budget. One that stayed up that long does.
func TestOnlyAConnectionThatStayedUpStartsTheBackoffOver(t *testing.T) {
	p := Policy{Initial: time.Second, Max: time.Minute, Multiplier: 2, Jitter: -1, ResetAfter: 10 * time.Second}
	r := NewRestarter(p, 3, nil)
	var delays []time.Duration
	for i := 0; i < 4; i++ {
		r.ConnectionEnded(9*time.Second, false) // ready, but not for long
		d, ok := r.Next(Retry)
		require.True(t, ok)
		delays = append(delays, d)
	}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, delays)
	assert.Equal(t, 4, r.Attempts())

	r.ConnectionEnded(10*time.Second, false)
	d, _ := r.Next(Retry)
	assert.Equal(t, time.Second, d, "a stable connection starts over")
	assert.Equal(t, 1, r.Attempts())

	for i := 0; i < 3; i++ {
		r.ConnectionEnded(time.Second, false)
		_, ok := r.Next(RetryBudgeted)
		require.True(t, ok)
	}
	r.ConnectionEnded(time.Second, false)
	_, ok := r.Next(RetryBudgeted)
	assert.False(t, ok, "short-lived connections do not restore the budget")
}

func TestResetAfterDefaultsToMax(t *testing.T) {
	r := NewRestarter(Policy{Initial: time.Second, Max: time.Minute, Jitter: -1}, 0, nil)
	r.Next(Retry)
	r.ConnectionEnded(59*time.Second, false)
	r.Next(Retry)
	assert.Equal(t, 2, r.Attempts())
	r.ConnectionEnded(time.Minute, false)
	assert.Equal(t, 0, r.Attempts())
}

// A server that answers calls and then exits (it serves its share and
// leaves, or leaks and is restarted) is restarted at the first delay each
// time, as one that stayed up long does; only when its restarts within
// the Period reach the Intensity do the delays grow again, as for a crash
// loop. Runs in a synctest bubble: its clock moves only as the test says.
func TestAServerThatDidWorkRestartsAtOnceUntilTheIntensityIsReached(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := Policy{Initial: time.Second, Max: time.Minute, Multiplier: 2, Jitter: -1, Intensity: 3, Period: time.Minute}
		r := NewRestarter(p, 0, nil)
		next := func(readyFor time.Duration, served bool) time.Duration {
			r.ConnectionEnded(readyFor, served)
			d, ok := r.Next(Retry)
			require.True(t, ok)
			time.Sleep(d + readyFor) // the wait, then the next connection's life
			return d
		}
		// Served calls, dies after 2 s: back at the first delay each time,
		// three times (the intensity).
		for i := 0; i < 3; i++ {
			assert.Equal(t, time.Second, next(2*time.Second, true), "restart %d of a server that did work", i)
		}
		// A fourth within the minute: the window is full, the delays grow.
		assert.Equal(t, 2*time.Second, next(2*time.Second, true), "intensity reached")
		assert.Equal(t, 4*time.Second, next(2*time.Second, true))

		// Ready but served nothing: a crash loop, whatever the window says.
		time.Sleep(2 * time.Minute)
		assert.Equal(t, 8*time.Second, next(2*time.Second, false), "no work, no reset")

		// Once the window has emptied, work starts the delays over again.
		time.Sleep(2 * time.Minute)
		assert.Equal(t, time.Second, next(2*time.Second, true), "window emptied")

		// Never ready (died before its handshake): never a reset.
		assert.Equal(t, 2*time.Second, next(0, true))
	})
}
