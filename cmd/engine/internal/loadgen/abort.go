package loadgen

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// liveStats is what the sampler keeps of the measured calls so far, for
// the thresholds that may stop a run while it goes on (Config.Abort).
type liveStats struct {
	counts   [numClasses]int64
	latency  *hdrhistogram.Histogram
	service  *hdrhistogram.Histogram
	measured float64 // seconds of measurement so far
}

// latencyStats are the statistic names of a latency family.
var latencyStats = []string{"min", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"}

// LiveMetric reports whether a metric can be judged while the run goes
// on, from the calls counted so far and their latencies; the others
// (connects, schedule, server processes) only at the end.
func LiveMetric(m *Metric) bool {
	name := strings.TrimPrefix(m.Name, "service_")
	return m.Errors || m.Name == "calls" || m.Name == "calls_per_s" || slices.Contains(latencyStats, name)
}

// add takes one interval of measured calls.
func (l *liveStats) add(iv *interval, sec float64) {
	for c := range numClasses {
		l.counts[c] += iv.counts[c]
	}
	if l.service == nil {
		l.service, l.latency = NewHistogram(), NewHistogram()
	}
	l.service.Merge(iv.service)
	if iv.latency != nil {
		l.latency.Merge(iv.latency)
	} else {
		l.latency.Merge(iv.service) // the closed model's latency is its service time
	}
	l.measured += sec
}

// result is the run so far, as far as live metrics read it.
func (l *liveStats) result() *Result {
	r := &Result{Errors: errorCounts(&l.counts)}
	r.OK = l.counts[OK]
	r.Failed = r.Errors.Total()
	r.Calls = r.OK + r.Failed
	r.ErrorRate = ratio(r.Failed, r.Calls)
	if l.measured > 0 {
		r.CallsPerSecond = float64(r.Calls) / l.measured
	}
	if l.service != nil {
		r.Latency, r.Service = Summarize(l.latency), Summarize(l.service)
	}
	return r
}

// checkAbort judges the abort thresholds on the run so far, once the
// grace period of measurement has passed and enough calls were made for
// a rate to mean something; it returns why the run must stop, or "".
func (l *liveStats) checkAbort(cfg *Config, at time.Duration) string {
	if len(cfg.Abort) == 0 || time.Duration(l.measured*float64(time.Second)) < cfg.AbortGrace {
		return ""
	}
	res := l.result()
	if res.Calls < minAbortCalls {
		return ""
	}
	for _, t := range cfg.Abort {
		if tr := t.Check(res); !tr.Pass && tr.Note == "" {
			return fmt.Sprintf("threshold %s crossed after %v of measurement (%s = %s, judged on the first %d calls)",
				t.Expr, at.Round(100*time.Millisecond), tr.Metric, FormatValue(Unit(tr.Unit), tr.Actual), res.Calls)
		}
	}
	return ""
}

// minAbortCalls is how many calls a run makes before a threshold may
// stop it: one early failure is not an error rate.
const minAbortCalls = 20
