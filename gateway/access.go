package gateway

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"golang.org/x/time/rate"
)

// layer is one policy in force with the rate limiter it owns. Layers are
// shared the way their policies are: a server's layer by every client, a
// client's layer by every server, so one token bucket limits the whole
// scope the policy names.
type layer struct {
	label   string // for denial messages: `server "files"`
	p       *compiledPolicy
	limiter *rate.Limiter // nil without a rate limit
}

func newLayer(label string, p *compiledPolicy) *layer {
	l := &layer{label: label, p: p}
	if rl := p.rateLimit; rl != nil {
		burst := rl.Burst
		if burst == 0 {
			burst = max(1, int(math.Ceil(rl.PerSecond)))
		}
		l.limiter = rate.NewLimiter(rate.Limit(rl.PerSecond), burst)
	}
	return l
}

// access is everything that governs one client's use of one server: the
// layers in the order they are checked (server, client, client for the
// server) and the tightest of their limits.
type access struct {
	layers           []*layer
	maxToolTime      time.Duration
	maxResourceBytes int64
}

func newAccess(layers ...*layer) *access {
	a := &access{}
	for _, l := range layers {
		if l == nil {
			continue
		}
		a.layers = append(a.layers, l)
		if d := l.p.maxToolTime; d > 0 && (a.maxToolTime == 0 || d < a.maxToolTime) {
			a.maxToolTime = d
		}
		if n := l.p.maxResourceBytes; n > 0 && (a.maxResourceBytes == 0 || n < a.maxResourceBytes) {
			a.maxResourceBytes = n
		}
	}
	return a
}

// check returns the first layer's denial of name, or nil.
func (a *access) check(kind ruleKind, name string) *Denial {
	for _, l := range a.layers {
		if rule := l.p.check(kind, name); rule != "" {
			return &Denial{Policy: l.label, Rule: rule, What: kind.noun() + " " + strconv.Quote(name)}
		}
	}
	return nil
}

// allows reports whether every layer allows name.
func (a *access) allows(kind ruleKind, name string) bool { return a.check(kind, name) == nil }

// limitedBy takes one token from every layer's bucket, or none: a request
// refused by the client's bucket does not spend the server's. It returns
// the label of the layer whose bucket was empty, or "".
func (a *access) limitedBy(now time.Time) string {
	var taken []*rate.Reservation
	for _, l := range a.layers {
		if l.limiter == nil {
			continue
		}
		r := l.limiter.ReserveN(now, 1)
		if !r.OK() || r.DelayFrom(now) > 0 {
			r.CancelAt(now)
			for _, t := range taken {
				t.CancelAt(now)
			}
			return l.label
		}
		taken = append(taken, r)
	}
	return ""
}

// sizeDenial is the denial of a resource whose contents are too large.
func (a *access) sizeDenial(uri string, size int64) *Denial {
	if a.maxResourceBytes == 0 || size <= a.maxResourceBytes {
		return nil
	}
	// Name the layer that set the tightest limit.
	label := ""
	for _, l := range a.layers {
		if l.p.maxResourceBytes == a.maxResourceBytes {
			label = l.label
			break
		}
	}
	return &Denial{
		Policy: label,
		Rule:   "maxResourceBytes " + strconv.FormatInt(a.maxResourceBytes, 10),
		What:   fmt.Sprintf("resource %q (%d bytes)", uri, size),
	}
}

// toolTimeLabel names the layer whose maxToolTime is in force.
func (a *access) toolTimeLabel() string {
	for _, l := range a.layers {
		if l.p.maxToolTime == a.maxToolTime {
			return l.label
		}
	}
	return ""
}
