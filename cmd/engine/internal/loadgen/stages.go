package loadgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Stage is one step of a ramp: over Duration the level moves linearly from
// where the previous stage ended to Target. The level is the total arrival
// rate in the open model and the number of active sessions in the closed
// one (k6's ramping-arrival-rate and ramping-vus).
type Stage struct {
	Duration time.Duration `json:"-"`
	Target   float64       `json:"target"`
}

type stageJSON struct {
	Seconds float64 `json:"duration_s"`
	Target  float64 `json:"target"`
}

// MarshalJSON encodes the duration in seconds.
func (s Stage) MarshalJSON() ([]byte, error) {
	return jsonMarshal(stageJSON{s.Duration.Seconds(), s.Target})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (s *Stage) UnmarshalJSON(b []byte) error {
	var j stageJSON
	if err := jsonUnmarshal(b, &j); err != nil {
		return err
	}
	*s = Stage{time.Duration(j.Seconds * float64(time.Second)), j.Target}
	return nil
}

// ParseStages parses "10s:100,30s:500,10s:0": each DURATION:TARGET ramps
// to TARGET over DURATION. An optional bare number first is the level the
// first stage starts from (default 0): "50,10s:100".
func ParseStages(s string) (start float64, stages []Stage, err error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		d, t, ok := strings.Cut(p, ":")
		if !ok {
			if i == 0 {
				if start, err = parseLevel(p); err != nil {
					return 0, nil, fmt.Errorf("stages: start level %q: %v", p, err)
				}
				continue
			}
			return 0, nil, fmt.Errorf("stages: %q is not DURATION:TARGET (e.g. 30s:100)", p)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || dur <= 0 {
			return 0, nil, fmt.Errorf("stages: %q: duration %q must be positive, like 10s or 1m30s", p, d)
		}
		target, err := parseLevel(strings.TrimSpace(t))
		if err != nil {
			return 0, nil, fmt.Errorf("stages: %q: target: %v", p, err)
		}
		stages = append(stages, Stage{Duration: dur, Target: target})
	}
	if len(stages) == 0 {
		return 0, nil, fmt.Errorf("stages: %q has no DURATION:TARGET stage", s)
	}
	return start, stages, nil
}

func parseLevel(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "/s"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a non-negative number", s)
	}
	return v, nil
}

// StagesString formats stages as ParseStages reads them.
func StagesString(start float64, stages []Stage) string {
	var b strings.Builder
	if start != 0 {
		b.WriteString(strconv.FormatFloat(start, 'g', -1, 64))
	}
	for _, s := range stages {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%v:%s", s.Duration, strconv.FormatFloat(s.Target, 'g', -1, 64))
	}
	return b.String()
}

// segment is one linear piece of a profile.
type segment struct {
	start, dur time.Duration
	from, to   float64
	cum0       float64 // events scheduled before start (open model)
}

// profile is the level over time since the run's start: piecewise linear,
// then constant at the last level forever if end is unbounded.
type profile struct {
	segs []segment
	end  time.Duration // math.MaxInt64: unbounded (a count ends the run)
}

const forever = time.Duration(math.MaxInt64)

// newProfile builds a profile from consecutive (duration, from, to)
// pieces; a last piece of duration forever is allowed.
func newProfile(pieces []segment) *profile {
	p := &profile{}
	var at time.Duration
	var cum float64
	for _, s := range pieces {
		if s.dur <= 0 {
			continue
		}
		s.start, s.cum0 = at, cum
		p.segs = append(p.segs, s)
		if s.dur == forever {
			at = forever
			break
		}
		at += s.dur
		cum += (s.from + s.to) / 2 * s.dur.Seconds()
	}
	p.end = at
	return p
}

// level is the level at t (the last level after the end).
func (p *profile) level(t time.Duration) float64 {
	for _, s := range p.segs {
		if t < s.start+s.dur || s.dur == forever {
			if s.dur == forever || s.from == s.to {
				return s.from
			}
			f := float64(t-s.start) / float64(s.dur)
			return s.from + (s.to-s.from)*max(0, min(1, f))
		}
	}
	if len(p.segs) == 0 {
		return 0
	}
	return p.segs[len(p.segs)-1].to
}

// countAt is the number of events scheduled in [0, t): the integral of the
// rate.
func (p *profile) countAt(t time.Duration) float64 {
	n := 0.0
	for _, s := range p.segs {
		if t <= s.start {
			break
		}
		tau := (t - s.start).Seconds()
		if s.dur != forever {
			tau = min(tau, s.dur.Seconds())
		}
		n = s.cum0 + s.integral(tau)
	}
	return n
}

// integral is the number of events in the segment's first tau seconds.
func (s segment) integral(tau float64) float64 {
	if s.dur == forever || s.from == s.to {
		return s.from * tau
	}
	slope := (s.to - s.from) / s.dur.Seconds()
	return s.from*tau + slope*tau*tau/2
}

// timeOf is the intended time of event k (from 0): the time at which the
// integral of the rate reaches k. ok is false if the profile ends first.
func (p *profile) timeOf(k int64) (time.Duration, bool) {
	n := float64(k)
	for _, s := range p.segs {
		var total float64
		if s.dur != forever {
			total = s.integral(s.dur.Seconds())
			if n >= s.cum0+total {
				continue
			}
		}
		m := n - s.cum0
		var tau float64
		switch {
		case m <= 0:
			tau = 0
		case s.dur == forever || s.from == s.to:
			if s.from <= 0 {
				return 0, false
			}
			tau = m / s.from
		default:
			// from·τ + slope·τ²/2 = m, solved in the form that stays
			// stable when slope is tiny or negative.
			slope := (s.to - s.from) / s.dur.Seconds()
			disc := s.from*s.from + 2*slope*m
			if disc < 0 {
				disc = 0
			}
			den := s.from + math.Sqrt(disc)
			if den <= 0 {
				continue
			}
			tau = 2 * m / den
		}
		return s.start + time.Duration(tau*float64(time.Second)), true
	}
	return 0, false
}
