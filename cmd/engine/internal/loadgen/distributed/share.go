package distributed

import (
	"errors"
	"fmt"
	"math"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// ErrSplit is returned when the load cannot be shared by the members
// (fewer sessions or calls than members).
var ErrSplit = errors.New("the load cannot be split")

// share is one member's part of the load.
type share struct {
	sessions    int
	rate        float64
	count       int64
	warmupCount int64
	// levelScale scales the stages' levels: the member's fraction of the
	// sessions (its fraction of the arrival rate in the open model).
	levelScale float64
}

// split divides cfg's load across n members: sessions as evenly as
// integers allow, and the arrival rate and call counts in proportion to
// each member's sessions, the counts rounded so that they add up exactly.
func split(cfg *loadgen.Config, n int) ([]share, error) {
	if n <= 0 {
		return nil, fmt.Errorf("distributed: no members to run the load")
	}
	total := max(cfg.Sessions, 1)
	if cfg.Model == loadgen.Closed && len(cfg.Stages) > 0 {
		// The stages give the number of sessions: their peak.
		peak := cfg.StartLevel
		for _, st := range cfg.Stages {
			peak = max(peak, st.Target)
		}
		total = max(int(math.Ceil(peak)), 1)
	}
	if total < n {
		return nil, fmt.Errorf("%w: %d sessions for %d members; give at least one session per member (-s %d)", ErrSplit, total, n, n)
	}
	if cfg.Count > 0 && cfg.Count < int64(n) {
		return nil, fmt.Errorf("%w: -n %d calls for %d members; give at least one call per member", ErrSplit, cfg.Count, n)
	}
	out := make([]share, n)
	sessions := make([]int64, n)
	for i := range out {
		s := total / n
		if i < total%n {
			s++
		}
		sessions[i] = int64(s)
		out[i].sessions = s
		out[i].levelScale = float64(s) / float64(total)
		out[i].rate = cfg.Rate * out[i].levelScale
	}
	counts := apportion(cfg.Count, sessions)
	warm := apportion(cfg.WarmupCount, sessions)
	for i := range out {
		out[i].count, out[i].warmupCount = counts[i], warm[i]
	}
	return out, nil
}

// apportion divides total in proportion to weights by largest remainder:
// the parts add up to total exactly.
func apportion(total int64, weights []int64) []int64 {
	out := make([]int64, len(weights))
	var sum int64
	for _, w := range weights {
		sum += w
	}
	if total == 0 || sum == 0 {
		return out
	}
	var given int64
	rem := make([]int64, len(weights))
	for i, w := range weights {
		out[i] = total * w / sum
		rem[i] = total * w % sum
		given += out[i]
	}
	for given < total {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
		given++
	}
	return out
}

// apply sets a member's share in the configuration it built from the
// run's flags.
func (s share) apply(cfg *loadgen.Config) {
	cfg.Sessions = s.sessions
	if cfg.Rate > 0 {
		cfg.Rate = s.rate
	}
	cfg.Count = s.count
	cfg.WarmupCount = s.warmupCount
	if len(cfg.Stages) > 0 {
		stages := append([]loadgen.Stage(nil), cfg.Stages...)
		for i := range stages {
			stages[i].Target *= s.levelScale
		}
		cfg.Stages = stages
		cfg.StartLevel *= s.levelScale
	}
}
