package supervisor

import (
	"math"
	"time"
)

// Policy shapes the delays between reconnect attempts.
type Policy struct {
	// Initial is the delay before the first retry. Default 100ms.
	Initial time.Duration
	// Max caps every delay, jitter included. Default 30s.
	Max time.Duration
	// Multiplier grows the delay per attempt. Default 2.
	Multiplier float64
	// Jitter is the fraction of the delay that is randomised, in [0,1]: the
	// delay for an attempt is drawn from [d*(1-Jitter), d*(1+Jitter)]. Zero
	// means the default 0.5; use a negative value for no jitter.
	Jitter float64
	// ResetAfter is how long a connection must stay ready before its
	// failure starts the delays and the restart budget over (the period of
	// the restart intensity, as in Erlang supervisors and systemd's
	// StartLimitIntervalSec). A server that dies sooner after its handshake
	// is in a crash loop, and each restart waits longer. Zero means Max: a
	// connection that outlived the longest wait it could be given was not
	// part of a loop.
	ResetAfter time.Duration
	// Intensity and Period bound the restarts of a server that does work
	// between its deaths: a connection that answered at least one call
	// before it failed starts the delays over, as one that stayed ready
	// for ResetAfter does, unless Intensity restarts already happened
	// within the last Period (then it counts as one more in a row, and the
	// delays keep growing). This is the restart intensity of Erlang
	// supervisors (MaxR in MaxT) and systemd (StartLimitBurst in
	// StartLimitIntervalSec). Zero means 10 restarts in 1 minute.
	Intensity int
	Period    time.Duration
}

// DefaultPolicy is used when a session's policy is left zero.
var DefaultPolicy = Policy{Initial: 100 * time.Millisecond, Max: 30 * time.Second, Multiplier: 2, Jitter: 0.5, Intensity: 10, Period: time.Minute}

func (p Policy) withDefaults() Policy {
	if p.Initial <= 0 {
		p.Initial = DefaultPolicy.Initial
	}
	if p.Max <= 0 {
		p.Max = DefaultPolicy.Max
	}
	if p.Max < p.Initial {
		p.Max = p.Initial
	}
	if p.Multiplier < 1 {
		p.Multiplier = DefaultPolicy.Multiplier
	}
	if p.ResetAfter <= 0 {
		p.ResetAfter = p.Max
	}
	if p.Intensity <= 0 {
		p.Intensity = DefaultPolicy.Intensity
	}
	if p.Period <= 0 {
		p.Period = DefaultPolicy.Period
	}
	switch {
	case p.Jitter == 0:
		p.Jitter = DefaultPolicy.Jitter
	case p.Jitter < 0:
		p.Jitter = 0
	case p.Jitter > 1:
		p.Jitter = 1
	}
	return p
}

// Delay is the wait before retry number attempt (0-based) given a uniform
// random number r in [0,1). It is a pure function so its bounds can be
// table-tested: the exponential base is computed first, jitter is applied
// to it, and only then is the result capped at Max, so no attempt ever
// waits longer than Max (adding jitter after the cap would overshoot it).
func Delay(p Policy, attempt int, r float64) time.Duration {
	p = p.withDefaults()
	if attempt < 0 {
		attempt = 0
	}
	base := float64(p.Initial) * math.Pow(p.Multiplier, float64(attempt))
	if math.IsInf(base, 0) || base > float64(p.Max)*4 {
		base = float64(p.Max) * 4 // far past the cap already; keeps the float finite
	}
	if r < 0 {
		r = 0
	}
	if r >= 1 {
		r = math.Nextafter(1, 0)
	}
	d := base * (1 - p.Jitter + 2*p.Jitter*r)
	if d > float64(p.Max) {
		d = float64(p.Max)
	}
	if d < 0 {
		d = 0
	}
	return time.Duration(d)
}
