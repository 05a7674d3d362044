package loadgen

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"
)

// Think is a pause between two steps of a flow: Min alone is fixed, Min
// to Max a uniform draw (an agent's pauses vary; a fixed one would
// synchronize the virtual users).
type Think struct {
	Min time.Duration `json:"min"`
	Max time.Duration `json:"max,omitempty"`
}

// ParseThink reads "200ms" (fixed) or "100ms..500ms" (uniform).
func ParseThink(s string) (Think, error) {
	s = strings.TrimSpace(s)
	lo, hi, ranged := strings.Cut(s, "..")
	a, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil {
		return Think{}, fmt.Errorf("%q: want a duration (200ms) or a range (100ms..500ms)", s)
	}
	t := Think{Min: a}
	if ranged {
		if t.Max, err = time.ParseDuration(strings.TrimSpace(hi)); err != nil {
			return Think{}, fmt.Errorf("%q: want a duration (200ms) or a range (100ms..500ms)", s)
		}
	}
	return t, t.validate()
}

func (t Think) validate() error {
	if t.Min < 0 || t.Max < 0 {
		return errors.New("must not be negative")
	}
	if t.Max != 0 && t.Max < t.Min {
		return fmt.Errorf("the range %v..%v ends before it starts", t.Min, t.Max)
	}
	return nil
}

// draw is one pause.
func (t Think) draw() time.Duration {
	if t.Max <= t.Min {
		return t.Min
	}
	return t.Min + time.Duration(mrand.Int64N(int64(t.Max-t.Min)+1))
}

func (t Think) String() string {
	if t.Max <= t.Min {
		return t.Min.String()
	}
	return t.Min.String() + ".." + t.Max.String()
}
