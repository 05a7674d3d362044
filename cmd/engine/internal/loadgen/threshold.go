package loadgen

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Threshold is one pass/fail check on a Result: METRIC OP VALUE, such as
// "p99<200ms", "error_rate<1%", "calls_per_s>=500".
type Threshold struct {
	Expr string
	// Scope and Target aim the check at a part of the run ("step",
	// "search"): see ParseThreshold. Empty: the whole run.
	Scope, Target string
	Metric        *Metric
	Op            string
	// Value is in the metric's unit (microseconds for durations, 0 to 1
	// for ratios).
	Value float64
}

var thresholdRE = regexp.MustCompile(`^\s*([A-Za-z0-9_.]+)\s*(<=|>=|==|<|>)\s*(\S.*?)\s*$`)

// ParseThreshold parses a threshold. Misspelled metrics, unknown
// operators and values without the unit their metric needs are errors:
// a check that cannot be evaluated must never pass silently.
//
// A prefix aims it at a part of the run: "step:NAME p99<200ms" (a flow's
// step; FLOW/NAME when two flows have a step of that name),
// "flow:NAME p95<2s" (whole iterations), "request:NAME error_rate<1%"
// (a request of the mix). NAME may be quoted ("step:\"tools/call echo\"
// p99<1s").
func ParseThreshold(s string) (*Threshold, error) {
	scope, target, rest, err := cutScope(s)
	if err != nil {
		return nil, err
	}
	t, err := parseExpr(rest)
	if err != nil {
		return nil, err
	}
	if scope != "" && !partMetric(t.Metric) {
		return nil, fmt.Errorf("threshold %q: %s is a figure of the whole run, not of a %s: use latency, service time, errors or calls", s, t.Metric.Name, scope)
	}
	t.Expr, t.Scope, t.Target = strings.TrimSpace(s), scope, target
	return t, nil
}

func parseExpr(s string) (*Threshold, error) {
	m := thresholdRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("threshold %q: want METRIC OP VALUE, e.g. 'p99<200ms' or 'error_rate<1%%' (OP is <, <=, >, >= or ==)", s)
	}
	met, err := LookupMetric(m[1])
	if err != nil {
		return nil, fmt.Errorf("threshold %q: %w", s, err)
	}
	v, err := parseValue(met.Unit, m[3])
	if err != nil {
		return nil, fmt.Errorf("threshold %q: %s: %w", s, met.Name, err)
	}
	return &Threshold{Expr: strings.TrimSpace(s), Metric: met, Op: m[2], Value: v}, nil
}

// parseValue reads a value in unit u: durations need a unit ("200ms"),
// ratios are percentages ("1%") or fractions ("0.01"), bytes may have a
// suffix ("50MB", "1GiB").
func parseValue(u Unit, s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch u {
	case UnitDuration:
		d, err := time.ParseDuration(strings.ReplaceAll(s, "us", "µs"))
		if err != nil {
			if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
				return 0, fmt.Errorf("%q needs a unit, e.g. %sms", s, s)
			}
			return 0, fmt.Errorf("%q is not a duration like 200ms or 1.5s", s)
		}
		return float64(d) / float64(time.Microsecond), nil
	case UnitRatio:
		if p, ok := strings.CutSuffix(s, "%"); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || v < 0 || v > 100 {
				return 0, fmt.Errorf("%q is not a percentage from 0%% to 100%%", s)
			}
			return v / 100, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v > 1 {
			return 0, fmt.Errorf("%q is not a rate: write a percentage (1%%) or a fraction from 0 to 1", s)
		}
		return v, nil
	case UnitBytes:
		return parseBytes(s)
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "/s"), 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

func parseBytes(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil {
				return 0, fmt.Errorf("%q is not a size like 50MB", s)
			}
			return v * u.mult, nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size like 50MB", s)
	}
	return v, nil
}

// Check evaluates the threshold on r. A metric the run did not measure
// fails the check.
func (t *Threshold) Check(r *Result) ThresholdResult {
	tr := ThresholdResult{Expr: t.Expr, Metric: t.Metric.Name, Unit: string(t.Metric.Unit)}
	if t.Scope != "" {
		part, note := scopeResult(r, t.Scope, t.Target)
		if part == nil {
			tr.Note = note
			return tr
		}
		r = part
	}
	v, ok := t.Metric.Value(r)
	if !ok {
		tr.Note = "not measured in this run"
		return tr
	}
	tr.Actual = v
	switch t.Op {
	case "<":
		tr.Pass = v < t.Value
	case "<=":
		tr.Pass = v <= t.Value
	case ">":
		tr.Pass = v > t.Value
	case ">=":
		tr.Pass = v >= t.Value
	case "==":
		tr.Pass = v == t.Value
	}
	return tr
}

// FormatValue writes a metric value for people: durations as durations,
// ratios as percentages.
func FormatValue(u Unit, v float64) string {
	switch u {
	case UnitDuration:
		return FormatDuration(time.Duration(v * float64(time.Microsecond)))
	case UnitRatio:
		return FormatPercent(v)
	case UnitRate:
		return strconv.FormatFloat(v, 'f', 1, 64) + "/s"
	case UnitPercent:
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	case UnitBytes:
		return FormatBytes(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// FormatPercent writes a 0-to-1 ratio as a percentage.
func FormatPercent(v float64) string {
	p := v * 100
	switch {
	case p == 0:
		return "0%"
	case p < 0.01:
		return "<0.01%"
	case p < 10:
		return strconv.FormatFloat(p, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + "%"
}

// FormatBytes writes a size in binary units.
func FormatBytes(v float64) string {
	neg := v < 0
	v = math.Abs(v)
	var s string
	switch {
	case v >= 1<<30:
		s = strconv.FormatFloat(v/(1<<30), 'f', 2, 64) + " GiB"
	case v >= 1<<20:
		s = strconv.FormatFloat(v/(1<<20), 'f', 1, 64) + " MiB"
	case v >= 1<<10:
		s = strconv.FormatFloat(v/(1<<10), 'f', 1, 64) + " KiB"
	default:
		s = strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	if neg {
		return "-" + s
	}
	return s
}

// FormatDuration rounds a duration for people: 3 significant digits.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Microsecond:
		return d.String()
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
