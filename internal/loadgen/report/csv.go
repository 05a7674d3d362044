package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/mcpengine/mcpengine/internal/loadgen"
)

// CSVHeader are the columns of -O csv: one row for all calls ("*") and
// one per request kind. Latencies in microseconds.
var CSVHeader = []string{
	"name", "method", "tool", "calls", "ok", "failed", "error_rate", "calls_per_s",
	"transport", "timeout", "rpc", "tool_error", "schema", "other",
	"p50_us", "p90_us", "p95_us", "p99_us", "p99_9_us", "max_us", "mean_us",
	"service_p50_us", "service_p99_us", "service_max_us",
}

// CSV writes the result as CSV with CSVHeader's columns.
func CSV(w io.Writer, r *loadgen.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	row := func(name, method, tool string, calls, ok, failed int64, rate, cps float64, e loadgen.ErrorCounts, l, s loadgen.Latency) []string {
		i := func(v int64) string { return strconv.FormatInt(v, 10) }
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		us := func(d interface{ Microseconds() int64 }) string { return i(d.Microseconds()) }
		return []string{name, method, tool, i(calls), i(ok), i(failed), f(rate), f(cps),
			i(e.Transport), i(e.Timeout), i(e.RPC), i(e.Tool), i(e.Schema), i(e.Other),
			us(l.P50), us(l.P90), us(l.P95), us(l.P99), us(l.P999), us(l.Max), us(l.Mean),
			us(s.P50), us(s.P99), us(s.Max)}
	}
	if err := cw.Write(row("*", r.Method, r.Tool, r.Calls, r.OK, r.Failed, r.ErrorRate, r.CallsPerSecond, r.Errors, r.Latency, r.Service)); err != nil {
		return err
	}
	for _, m := range r.Methods {
		if err := cw.Write(row(m.Name, m.Method, m.Tool, m.Calls, m.OK, m.Failed, m.ErrorRate, m.CallsPerSecond, m.Errors, m.Latency, m.Service)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
