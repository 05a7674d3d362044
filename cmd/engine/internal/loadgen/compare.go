package loadgen

import (
	"fmt"
	"math"
	"slices"
	"strconv"
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
	rows := make([]compareRow, 0, len(compareRows))
	for _, n := range compareRows {
		rows = append(rows, compareRow{metric: metricMap[n]})
	}
	rows = append(rows, partRows(base, cur)...)
	for _, c := range o.Checks {
		row, err := parseCompareRow(c)
		if err != nil {
			return nil, err
		}
		checked[row.label()] = true
		if !slices.ContainsFunc(rows, func(r compareRow) bool { return r.label() == row.label() }) {
			rows = append(rows, row)
		}
	}
	var out []Delta
	for _, row := range rows {
		m, name := row.metric, row.label()
		b, ok1 := row.value(base)
		n, ok2 := row.value(cur)
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

// compareRow is one metric of the run, or of a part of it (a flow, a
// step, a request of the mix).
type compareRow struct {
	scope, target string
	metric        *Metric
}

func (r compareRow) label() string {
	if r.scope == "" {
		return r.metric.Name
	}
	t := r.target
	if strings.ContainsAny(t, " \"") {
		t = strconv.Quote(t) // as --check and --threshold read it back
	}
	return r.scope + ":" + t + " " + r.metric.Name
}

func (r compareRow) value(res *Result) (float64, bool) {
	if r.scope != "" {
		part, _ := scopeResult(res, r.scope, r.target)
		if part == nil {
			return 0, false
		}
		res = part
	}
	return r.metric.Value(res)
}

// parseCompareRow reads a --check name: METRIC, or SCOPE:NAME METRIC.
func parseCompareRow(s string) (compareRow, error) {
	scope, target, rest, err := cutScope(s)
	if err != nil {
		return compareRow{}, err
	}
	m, err := LookupMetric(rest)
	if err != nil {
		return compareRow{}, err
	}
	if scope != "" && !partMetric(m) {
		return compareRow{}, fmt.Errorf("%s is a figure of the whole run, not of a %s", m.Name, scope)
	}
	return compareRow{scope: scope, target: target, metric: m}, nil
}

// partRows are the rows shown for the flows both runs have: each flow's
// iterations and each of its steps (shown, judged only when --check
// names them).
func partRows(base, cur *Result) []compareRow {
	var out []compareRow
	for _, f := range base.Flows {
		if !slices.ContainsFunc(cur.Flows, func(g FlowResult) bool { return g.Name == f.Name }) {
			continue
		}
		for _, m := range []string{"error_rate", "p50", "p99"} {
			out = append(out, compareRow{scope: "flow", target: f.Name, metric: metricMap[m]})
		}
		for _, st := range f.Steps {
			for _, m := range []string{"error_rate", "p50", "p99"} {
				out = append(out, compareRow{scope: "step", target: f.Name + "/" + st.Name, metric: metricMap[m]})
			}
		}
	}
	return out
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
		for _, f := range r.Flows {
			s = append(s, "flow "+f.Name)
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
