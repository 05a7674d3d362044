package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpengine/mcpengine/internal/loadgen"
)

// output is one -O FORMAT[=FILE].
type output struct {
	format string
	path   string // "" for stdout
}

type outputs []output

var outputFormats = map[string]func(io.Writer, *loadgen.Result) error{
	"text": func(w io.Writer, r *loadgen.Result) error { return printLoadReport(w, r) },
	"json": writeLoadJSON,
	"csv":  writeLoadCSV,
	"html": writeLoadHTML,
	"prom": writeLoadProm,
}

// parseOutputs reads the -O flags. --json is -O json. Without any output
// to stdout, the text report goes there.
func parseOutputs(specs []string, jsonFlag bool) (outputs, error) {
	var outs outputs
	if jsonFlag {
		specs = append(specs, "json")
	}
	stdout := 0
	for _, s := range specs {
		format, path, _ := strings.Cut(s, "=")
		format = strings.ToLower(strings.TrimSpace(format))
		if format == "prometheus" {
			format = "prom"
		}
		if _, ok := outputFormats[format]; !ok {
			return nil, usagef("-O %q: the formats are text, json, csv, html and prom, optionally =FILE", s)
		}
		if path == "" || path == "-" {
			path = ""
			stdout++
		}
		outs = append(outs, output{format, path})
	}
	if stdout > 1 {
		return nil, usagef("-O: only one report can go to stdout; give the others =FILE")
	}
	if stdout == 0 {
		outs = append(outs, output{format: "text"})
	}
	return outs, nil
}

func (o outputs) textOnStdout() bool {
	for _, x := range o {
		if x.path == "" {
			return x.format == "text"
		}
	}
	return false
}

// write writes every report; files are written whole or not at all.
func (o outputs) write(stdout io.Writer, r *loadgen.Result) error {
	for _, x := range o {
		write := outputFormats[x.format]
		if x.path == "" {
			bw := bufio.NewWriter(stdout)
			if err := write(bw, r); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			continue
		}
		if err := writeFileAtomic(x.path, func(w io.Writer) error { return write(w, r) }); err != nil {
			return fmt.Errorf("writing %s report: %w", x.format, err)
		}
	}
	return nil
}

// writeFileAtomic writes through a temporary file renamed into place, so
// an interrupted write never leaves half a report.
func writeFileAtomic(path string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".engine-load-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := fill(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeLoadJSON(w io.Writer, r *loadgen.Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// csvHeader are the columns of -O csv: one row for all calls ("*") and
// one per request kind. Latencies in microseconds.
var csvHeader = []string{
	"name", "method", "tool", "calls", "ok", "failed", "error_rate", "calls_per_s",
	"transport", "timeout", "rpc", "tool_error", "schema", "other",
	"p50_us", "p90_us", "p95_us", "p99_us", "p99_9_us", "max_us", "mean_us",
	"service_p50_us", "service_p99_us", "service_max_us",
}

func writeLoadCSV(w io.Writer, r *loadgen.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
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

// writeLoadProm writes the result in the Prometheus text exposition
// format, for a push gateway or a textfile collector.
func writeLoadProm(w io.Writer, r *loadgen.Result) error {
	bw := &promWriter{w: w}
	lbl := func(kv ...string) string {
		var b strings.Builder
		for i := 0; i+1 < len(kv); i += 2 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%q", kv[i], kv[i+1])
		}
		if b.Len() == 0 {
			return ""
		}
		return "{" + b.String() + "}"
	}
	bw.head("mcpengine_load_calls_total", "counter", "Measured calls by request kind and outcome class.")
	for _, m := range r.Methods {
		bw.line("mcpengine_load_calls_total"+lbl("request", m.Name, "class", "ok"), float64(m.OK))
		for _, e := range errorClassText {
			bw.line("mcpengine_load_calls_total"+lbl("request", m.Name, "class", e.class.String()), float64(m.Errors.Of(e.class)))
		}
	}
	if len(r.RPCCodes) > 0 {
		bw.head("mcpengine_load_rpc_errors_total", "counter", "JSON-RPC error answers by code.")
		codes := make([]string, 0, len(r.RPCCodes))
		for c := range r.RPCCodes {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		for _, c := range codes {
			bw.line("mcpengine_load_rpc_errors_total"+lbl("code", c), float64(r.RPCCodes[c]))
		}
	}
	quant := func(name, help string, get func(m loadgen.MethodResult) loadgen.Latency) {
		bw.head(name, "summary", help)
		for _, m := range r.Methods {
			l := get(m)
			for _, q := range []struct {
				q string
				v interface{ Seconds() float64 }
			}{{"0.5", l.P50}, {"0.9", l.P90}, {"0.95", l.P95}, {"0.99", l.P99}, {"0.999", l.P999}, {"1", l.Max}} {
				bw.line(name+lbl("request", m.Name, "quantile", q.q), q.v.Seconds())
			}
			bw.line(name+"_sum"+lbl("request", m.Name), l.Mean.Seconds()*float64(l.Count))
			bw.line(name+"_count"+lbl("request", m.Name), float64(l.Count))
		}
	}
	quant("mcpengine_load_latency_seconds", "Call latency (open model: from the scheduled send time).", func(m loadgen.MethodResult) loadgen.Latency { return m.Latency })
	quant("mcpengine_load_service_seconds", "Call service time (from the actual send).", func(m loadgen.MethodResult) loadgen.Latency { return m.Service })
	bw.head("mcpengine_load_calls_per_second", "gauge", "Measured throughput.")
	bw.line("mcpengine_load_calls_per_second", r.CallsPerSecond)
	bw.head("mcpengine_load_duration_seconds", "gauge", "Measured time.")
	bw.line("mcpengine_load_duration_seconds", r.Seconds)
	bw.head("mcpengine_load_sessions", "gauge", "Sessions.")
	bw.line("mcpengine_load_sessions", float64(r.Sessions))
	if s := r.Schedule; s != nil {
		bw.head("mcpengine_load_scheduled_total", "counter", "Open model: calls scheduled, sent, late and never sent.")
		for _, kv := range []struct {
			k string
			v int64
		}{{"intended", s.Intended}, {"sent", s.Sent}, {"late", s.Late}, {"unsent", s.Unsent}} {
			bw.line("mcpengine_load_scheduled_total"+lbl("state", kv.k), float64(kv.v))
		}
	}
	bw.head("mcpengine_load_connect_seconds", "gauge", "Connect phases, median.")
	bw.line("mcpengine_load_connect_seconds"+lbl("phase", "transport"), r.Connect.P50.Seconds())
	bw.line("mcpengine_load_connect_seconds"+lbl("phase", "handshake"), r.Handshake.P50.Seconds())
	if p := r.Processes; p != nil {
		bw.head("mcpengine_load_server_cpu_seconds", "gauge", "CPU time of the server processes during the run.")
		bw.line("mcpengine_load_server_cpu_seconds", p.CPUSeconds)
		bw.head("mcpengine_load_server_rss_bytes", "gauge", "Resident memory of the server processes together.")
		bw.line("mcpengine_load_server_rss_bytes"+lbl("at", "first"), float64(p.RSSFirst))
		bw.line("mcpengine_load_server_rss_bytes"+lbl("at", "last"), float64(p.RSSLast))
		bw.line("mcpengine_load_server_rss_bytes"+lbl("at", "max"), float64(p.RSSMax))
	}
	if len(r.Thresholds) > 0 {
		bw.head("mcpengine_load_threshold_pass", "gauge", "1 if the threshold passed.")
		for _, t := range r.Thresholds {
			v := 0.0
			if t.Pass {
				v = 1
			}
			bw.line("mcpengine_load_threshold_pass"+lbl("threshold", t.Expr), v)
		}
	}
	return bw.err
}

type promWriter struct {
	w   io.Writer
	err error
}

func (p *promWriter) head(name, typ, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (p *promWriter) line(series string, v float64) {
	p.printf("%s %s\n", series, strconv.FormatFloat(v, 'g', -1, 64))
}

func (p *promWriter) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}
