package supervisor

import (
	"math/rand/v2"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// jitteredBackOff adapts Delay to cenkalti's backoff.BackOff so the retry
// budget and elapsed-time limits come from that library.
type jitteredBackOff struct {
	policy  Policy
	attempt int
	rand    func() float64
}

func (b *jitteredBackOff) NextBackOff() time.Duration {
	d := Delay(b.policy, b.attempt, b.rand())
	b.attempt++
	return d
}

func (b *jitteredBackOff) Reset() { b.attempt = 0 }

// Restarter hands out the delays for one session's reconnect attempts and
// says when the budget is spent. It is owned by the session actor and is not
// safe for concurrent use.
type Restarter struct {
	budgeted   backoff.BackOff // shares unbounded's attempt count, capped by the budget
	unbounded  *jitteredBackOff
	consumed   int
	resetAfter time.Duration
	period     time.Duration
	// recent holds the instants of the last Intensity restarts, oldest
	// first once full: whether Intensity of them fall within Period is a
	// look at the oldest.
	recent []time.Time
}

// NewRestarter returns a Restarter. maxRetries bounds consecutive failed
// attempts for failures that carry a budget (Classify's RetryBudgeted);
// zero means 5. rnd may be nil (then math/rand/v2 is used).
func NewRestarter(p Policy, maxRetries int, rnd func() float64) *Restarter {
	if maxRetries <= 0 {
		maxRetries = 5
	}
	if rnd == nil {
		rnd = rand.Float64
	}
	j := &jitteredBackOff{policy: p, rand: rnd}
	p = p.withDefaults()
	r := &Restarter{unbounded: j, resetAfter: p.ResetAfter, period: p.Period, recent: make([]time.Time, 0, p.Intensity)}
	r.budgeted = backoff.WithMaxRetries(j, uint64(maxRetries))
	return r
}

// Next returns the delay before the next attempt, and false when the
// failure's budget is spent and the session must close instead.
func (r *Restarter) Next(d Decision) (time.Duration, bool) {
	switch d {
	case Permanent:
		return 0, false
	case RetryBudgeted:
		next := r.budgeted.NextBackOff()
		if next == backoff.Stop {
			return 0, false
		}
		r.consumed++
		r.restarted()
		return next, true
	default:
		r.consumed++
		r.restarted()
		return r.unbounded.NextBackOff(), true
	}
}

// restarted notes a restart's instant for the intensity window.
func (r *Restarter) restarted() {
	if len(r.recent) == cap(r.recent) {
		copy(r.recent, r.recent[1:])
		r.recent = r.recent[:len(r.recent)-1]
	}
	r.recent = append(r.recent, time.Now())
}

// tooIntense reports whether Intensity restarts already happened within
// the last Period.
func (r *Restarter) tooIntense() bool {
	return len(r.recent) == cap(r.recent) && time.Since(r.recent[0]) < r.period
}

// Attempts reports how many retries were scheduled since the last Reset.
func (r *Restarter) Attempts() int { return r.consumed }

// ConnectionEnded tells the restarter how long the connection that just
// failed had been ready (zero: it never was) and whether it answered any
// call, before the session asks for the next delay. One that stayed ready
// for the policy's ResetAfter starts the delays and the budget over. One
// that died sooner but did work (a server that exits after serving its
// share of calls, by design or by leak) starts over too, unless the
// restarts within the policy's Period already reached its Intensity. Any
// other counts as one more restart in a row, so a server that crashes
// right after its handshake is restarted ever more slowly instead of at
// the first delay every time.
func (r *Restarter) ConnectionEnded(readyFor time.Duration, served bool) {
	if readyFor >= r.resetAfter || (served && readyFor > 0 && !r.tooIntense()) {
		r.Reset()
	}
}

// Reset starts the growth and the budget over.
func (r *Restarter) Reset() {
	r.consumed = 0
	r.budgeted.Reset()
}
