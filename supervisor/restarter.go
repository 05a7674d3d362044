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
	r := &Restarter{unbounded: j, resetAfter: p.withDefaults().ResetAfter}
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
		return next, true
	default:
		r.consumed++
		return r.unbounded.NextBackOff(), true
	}
}

// Attempts reports how many retries were scheduled since the last Reset.
func (r *Restarter) Attempts() int { return r.consumed }

// ConnectionEnded tells the restarter how long the connection that just
// failed had been ready (zero: it never was), before the session asks for
// the next delay. One that stayed ready for the policy's ResetAfter starts
// the delays and the budget over; one that died sooner counts as one more
// restart in a row, so a server that crashes right after its handshake is
// restarted ever more slowly instead of at the first delay every time.
func (r *Restarter) ConnectionEnded(readyFor time.Duration) {
	if readyFor >= r.resetAfter {
		r.Reset()
	}
}

// Reset starts the growth and the budget over.
func (r *Restarter) Reset() {
	r.consumed = 0
	r.budgeted.Reset()
}
