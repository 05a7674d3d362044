package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// CSVHeader are the columns of -O csv: one row for all calls ("*", kind
// run), one per request kind of the mix (kind request), and per flow one
// row for its iterations (kind flow: calls are iterations, latency the
// whole iteration) and one per step (kind step). Latencies in
// microseconds. Columns are only ever added at the end.
var CSVHeader = []string{
	"name", "method", "tool", "calls", "ok", "failed", "error_rate", "calls_per_s",
	"transport", "timeout", "rpc", "tool_error", "schema", "other",
	"p50_us", "p90_us", "p95_us", "p99_us", "p99_9_us", "max_us", "mean_us",
	"service_p50_us", "service_p99_us", "service_max_us",
	"check", "kind", "flow",
}

// csvRow is one row's figures.
type csvRow struct {
	name, method, tool, kind, flow string
	calls, ok, failed              int64
	rate, cps                      float64
	errs                           loadgen.ErrorCounts
	lat, svc                       loadgen.Latency
}

func (c csvRow) cells() []string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	us := func(d interface{ Microseconds() int64 }) string { return i(d.Microseconds()) }
	e, l, s := c.errs, c.lat, c.svc
	return []string{c.name, c.method, c.tool, i(c.calls), i(c.ok), i(c.failed), f(c.rate), f(c.cps),
		i(e.Transport), i(e.Timeout), i(e.RPC), i(e.Tool), i(e.Schema), i(e.Other),
		us(l.P50), us(l.P90), us(l.P95), us(l.P99), us(l.P999), us(l.Max), us(l.Mean),
		us(s.P50), us(s.P99), us(s.Max),
		i(e.Check), c.kind, c.flow}
}

func methodRow(m loadgen.MethodResult, kind string) csvRow {
	return csvRow{name: m.Name, method: m.Method, tool: m.Tool, kind: kind, flow: m.Flow,
		calls: m.Calls, ok: m.OK, failed: m.Failed, rate: m.ErrorRate, cps: m.CallsPerSecond,
		errs: m.Errors, lat: m.Latency, svc: m.Service}
}

// CSV writes the result as CSV with CSVHeader's columns.
func CSV(w io.Writer, r *loadgen.Result) error {
	rows := []csvRow{{name: "*", method: r.Method, tool: r.Tool, kind: "run",
		calls: r.Calls, ok: r.OK, failed: r.Failed, rate: r.ErrorRate, cps: r.CallsPerSecond,
		errs: r.Errors, lat: r.Latency, svc: r.Service}}
	for _, m := range r.Methods {
		rows = append(rows, methodRow(m, "request"))
	}
	for _, f := range r.Flows {
		rows = append(rows, csvRow{name: f.Name, kind: "flow", flow: f.Name,
			calls: f.Iterations, ok: f.OK, failed: f.Failed, rate: f.ErrorRate, cps: f.IterationsPerSecond,
			errs: f.Errors, lat: f.Latency})
		for _, s := range f.Steps {
			rows = append(rows, methodRow(s, "step"))
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, row := range rows {
		if err := cw.Write(row.cells()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
