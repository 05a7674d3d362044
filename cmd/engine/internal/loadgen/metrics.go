package loadgen

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/internal/configcheck"
)

// Unit is how a metric's value reads.
type Unit string

// Metric units.
const (
	UnitDuration Unit = "us"    // microseconds
	UnitRatio    Unit = "ratio" // 0 to 1, written as a percentage
	UnitCount    Unit = "count"
	UnitRate     Unit = "per_s"
	UnitPercent  Unit = "pct"   // CPU, percent of one core
	UnitBytes    Unit = "bytes" // memory
)

// Metric is one figure of a Result that thresholds and compare can name.
type Metric struct {
	Name string
	Unit Unit
	// Worse is +1 when a higher value is worse (latency, errors), -1 when
	// lower is worse (throughput).
	Worse int
	// Errors marks the error metrics: a threshold on one of them decides
	// whether failed calls fail the run.
	Errors bool
	Doc    string
	get    func(*Result) (float64, bool)
}

// Value reads the metric from r; ok is false when r does not measure it
// (the open model's schedule in a closed run, processes of a non-stdio
// target).
func (m *Metric) Value(r *Result) (float64, bool) { return m.get(r) }

var (
	metricList []*Metric
	metricMap  = map[string]*Metric{}
	// metricAliases are other spellings people reach for.
	metricAliases = map[string]string{
		"rps": "calls_per_s", "throughput": "calls_per_s", "p999": "p99.9", "p99_9": "p99.9",
		"errors_rate": "error_rate", "err_rate": "error_rate", "latency": "p50",
	}
)

func addMetric(m *Metric) {
	metricList = append(metricList, m)
	metricMap[m.Name] = m
}

// stat reads one statistic of a latency summary by its metric suffix.
func (l Latency) stat(name string) time.Duration {
	switch name {
	case "min":
		return l.Min
	case "mean":
		return l.Mean
	case "p50":
		return l.P50
	case "p90":
		return l.P90
	case "p95":
		return l.P95
	case "p99":
		return l.P99
	case "p99.9":
		return l.P999
	}
	return l.Max
}

// scheduleMetric reads an open-model figure: a closed run does not
// measure it.
func scheduleMetric(get func(*Schedule) float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) {
		if r.Schedule == nil {
			return 0, false
		}
		return get(r.Schedule), true
	}
}

// processMetric reads a server process figure: only stdio targets have
// them.
func processMetric(get func(*ProcStats) float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) {
		if r.Processes == nil {
			return 0, false
		}
		return get(r.Processes), true
	}
}

func init() {
	stats := []string{"min", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"}
	families := []struct {
		prefix, doc string
		get         func(*Result) (Latency, bool)
	}{
		{"", "latency (open model: from the scheduled send time)", func(r *Result) (Latency, bool) { return r.Latency, r.Latency.Count > 0 }},
		{"service_", "service time (from the actual send)", func(r *Result) (Latency, bool) { return r.Service, r.Service.Count > 0 }},
		{"handshake_", "initialize round trip", func(r *Result) (Latency, bool) { return r.Handshake, r.Handshake.Count > 0 }},
		{"send_lag_", "open model: how late calls were sent", func(r *Result) (Latency, bool) {
			if r.Schedule == nil {
				return Latency{}, false
			}
			return r.Schedule.SendLag, r.Schedule.SendLag.Count > 0
		}},
	}
	for _, f := range families {
		for _, st := range stats {
			get := f.get
			addMetric(&Metric{Name: f.prefix + st, Unit: UnitDuration, Worse: 1, Doc: st + " " + f.doc,
				get: func(r *Result) (float64, bool) {
					l, ok := get(r)
					return float64(l.stat(st)) / float64(time.Microsecond), ok
				}})
		}
	}
	for _, st := range []string{"min", "mean", "p50", "p99", "max"} {
		addMetric(&Metric{Name: "connect_" + st, Unit: UnitDuration, Worse: 1, Doc: st + " transport connect (process start)",
			get: func(r *Result) (float64, bool) {
				c := r.Connect
				l := Latency{Min: c.Min, Mean: c.Mean, P50: c.P50, P99: c.P99, Max: c.Max}
				return float64(l.stat(st)) / float64(time.Microsecond), c.Max > 0
			}})
	}
	addMetric(&Metric{Name: "error_rate", Unit: UnitRatio, Worse: 1, Errors: true, Doc: "failed calls / calls",
		get: func(r *Result) (float64, bool) { return r.ErrorRate, true }})
	addMetric(&Metric{Name: "errors", Unit: UnitCount, Worse: 1, Errors: true, Doc: "failed calls",
		get: func(r *Result) (float64, bool) { return float64(r.Failed), true }})
	for c := RPCError; c < numClasses; c++ {
		addMetric(&Metric{Name: c.String() + "_errors", Unit: UnitCount, Worse: 1, Errors: true, Doc: "failed calls of class " + c.String(),
			get: func(r *Result) (float64, bool) { return float64(r.Errors.Of(c)), true }})
		addMetric(&Metric{Name: c.String() + "_error_rate", Unit: UnitRatio, Worse: 1, Errors: true, Doc: "class " + c.String() + " failures / calls",
			get: func(r *Result) (float64, bool) { return ratio(r.Errors.Of(c), r.Calls), true }})
	}
	addMetric(&Metric{Name: "calls", Unit: UnitCount, Worse: -1, Doc: "measured calls",
		get: func(r *Result) (float64, bool) { return float64(r.Calls), true }})
	addMetric(&Metric{Name: "calls_per_s", Unit: UnitRate, Worse: -1, Doc: "throughput",
		get: func(r *Result) (float64, bool) { return r.CallsPerSecond, true }})
	addMetric(&Metric{Name: "late", Unit: UnitCount, Worse: 1, Doc: "open model: calls sent behind schedule",
		get: scheduleMetric(func(s *Schedule) float64 { return float64(s.Late) })})
	addMetric(&Metric{Name: "late_rate", Unit: UnitRatio, Worse: 1, Doc: "open model: late / scheduled",
		get: scheduleMetric(func(s *Schedule) float64 { return ratio(s.Late, s.Intended) })})
	addMetric(&Metric{Name: "unsent", Unit: UnitCount, Worse: 1, Doc: "open model: scheduled calls never sent",
		get: scheduleMetric(func(s *Schedule) float64 { return float64(s.Unsent) })})
	addMetric(&Metric{Name: "connect_errors", Unit: UnitCount, Worse: 1, Doc: "connects that failed during the run",
		get: func(r *Result) (float64, bool) { return float64(r.Connect.Failed), true }})
	addMetric(&Metric{Name: "server_cpu_pct", Unit: UnitPercent, Worse: 1, Doc: "server processes' mean CPU (100 = one core)",
		get: processMetric(func(p *ProcStats) float64 { return p.CPUPercent })})
	addMetric(&Metric{Name: "server_rss_max", Unit: UnitBytes, Worse: 1, Doc: "server processes' peak resident memory together",
		get: processMetric(func(p *ProcStats) float64 { return float64(p.RSSMax) })})
	addMetric(&Metric{Name: "server_rss_growth", Unit: UnitBytes, Worse: 1, Doc: "server memory at the end minus at the start (a leak shows here)",
		get: processMetric(func(p *ProcStats) float64 { return float64(p.RSSLast - p.RSSFirst) })})
}

// LookupMetric finds a metric by name or alias.
func LookupMetric(name string) (*Metric, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := metricAliases[n]; ok {
		n = a
	}
	if m, ok := metricMap[n]; ok {
		return m, nil
	}
	msg := fmt.Sprintf("unknown metric %q", name)
	if s := closest(n); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return nil, fmt.Errorf("%s; metrics: %s", msg, strings.Join(MetricNames(), ", "))
}

// MetricNames lists every metric name.
func MetricNames() []string {
	out := make([]string, len(metricList))
	for i, m := range metricList {
		out[i] = m.Name
	}
	return out
}

// closest is the metric name nearest to s, if any is near.
func closest(s string) string {
	best, bestD := "", 3
	names := MetricNames()
	sort.Strings(names)
	for _, n := range names {
		if d := configcheck.Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
