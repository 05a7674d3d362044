package loadgen

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// CompareOptions say what counts as a regression between two runs.
type CompareOptions struct {
	// Tolerance is the relative change allowed in latencies and throughput
	// before it counts as a regression (default 0.10: 10%).
	Tolerance float64
	// ErrorTolerance is the absolute rise allowed in error rates (default
	// 0.001: 0.1 percentage point).
	ErrorTolerance float64
	// Checks are the metrics judged (default DefaultChecks); the other
	// rows are shown but never fail the comparison.
	Checks []string
}

// DefaultChecks are the metrics compare judges by default: the figures
// that are stable from run to run. Maxima are too noisy to judge.
var DefaultChecks = []string{"calls_per_s", "error_rate", "p50", "p90", "p99"}

// compareRows are the metrics compare shows.
var compareRows = []string{
	"calls_per_s", "error_rate", "p50", "p90", "p95", "p99", "p99.9", "max",
	"service_p50", "service_p99", "late_rate", "handshake_p50", "connect_p50", "server_cpu_pct", "server_rss_max",
}

// Delta is one metric in both runs.
type Delta struct {
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`
	Base   float64 `json:"base"`
	New    float64 `json:"new"`
	// Change is (new-base)/base (0 when base is 0).
	Change float64 `json:"change"`
	// Worse says the change goes the bad way; Checked that the metric is
	// judged; Regression that it is judged and beyond the tolerance.
	Worse      bool `json:"worse"`
	Checked    bool `json:"checked"`
	Regression bool `json:"regression"`
}

// Compare lists the deltas between two runs. It fails only on an unknown
// metric in Checks.
func Compare(base, cur *Result, o CompareOptions) ([]Delta, error) {
	if o.Tolerance <= 0 {
		o.Tolerance = 0.10
	}
	if o.ErrorTolerance <= 0 {
		o.ErrorTolerance = 0.001
	}
	if len(o.Checks) == 0 {
		o.Checks = DefaultChecks
	}
	checked := map[string]bool{}
	rows := append([]string{}, compareRows...)
	for _, c := range o.Checks {
		m, err := LookupMetric(c)
		if err != nil {
			return nil, err
		}
		checked[m.Name] = true
		if !slices.Contains(rows, m.Name) {
			rows = append(rows, m.Name)
		}
	}
	var out []Delta
	for _, name := range rows {
		m := metricMap[name]
		b, ok1 := m.Value(base)
		n, ok2 := m.Value(cur)
		if !ok1 || !ok2 {
			continue
		}
		d := Delta{Metric: name, Unit: string(m.Unit), Base: b, New: n, Checked: checked[name]}
		if b != 0 {
			d.Change = (n - b) / math.Abs(b)
		}
		d.Worse = float64(m.Worse)*(n-b) > 0
		if d.Checked && d.Worse {
			switch m.Unit {
			case UnitRatio:
				d.Regression = math.Abs(n-b) > o.ErrorTolerance
			default:
				d.Regression = b != 0 && math.Abs(d.Change) > o.Tolerance
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// Comparable explains why two runs may not be comparable (nothing if
// they are): a different model, workload or load shape.
func Comparable(base, cur *Result) []string {
	var out []string
	if base.Model != cur.Model {
		out = append(out, fmt.Sprintf("model differs: %s vs %s", base.Model, cur.Model))
	}
	names := func(r *Result) string {
		var s []string
		for _, w := range r.Workload {
			s = append(s, w.Name)
		}
		return strings.Join(s, ", ")
	}
	if nb, nc := names(base), names(cur); nb != nc {
		out = append(out, fmt.Sprintf("workload differs: %s vs %s", nb, nc))
	}
	if base.Sessions != cur.Sessions || base.Concurrency != cur.Concurrency {
		out = append(out, fmt.Sprintf("load differs: %d sessions x %d vs %d x %d", base.Sessions, base.Concurrency, cur.Sessions, cur.Concurrency))
	}
	if base.Rate != cur.Rate {
		out = append(out, fmt.Sprintf("rate differs: %g/s vs %g/s", base.Rate, cur.Rate))
	}
	return out
}
