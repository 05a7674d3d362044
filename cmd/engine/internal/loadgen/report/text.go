package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/messages"
)

// ErrorClasses explains each failure class to someone who has never
// used the tool. A class's String is its key in the JSON report.
var ErrorClasses = []struct {
	class loadgen.Class
	label string
}{
	{loadgen.Transport, "transport errors (connection lost, session closed)"},
	{loadgen.Timeout, "timeouts (no answer within --timeout)"},
	{loadgen.RPCError, "server error answers (JSON-RPC error)"},
	{loadgen.ToolError, "tool errors (result isError: true)"},
	{loadgen.SchemaError, "results not matching the tool's outputSchema"},
	{loadgen.Other, "other (rejected by the engine, bad result or template)"},
	{loadgen.CheckFailed, "failed checks of flow steps (check or extract)"},
}

// Text writes the report for people.
func Text(w io.Writer, r *loadgen.Result) error {
	open := r.Model == string(loadgen.Open)
	fmt.Fprintf(w, "Target:      %s\n", r.Target)
	printWorkload(w, r)
	fmt.Fprintf(w, "Load:        %s\n", loadLine(r))
	if r.Warmup.Seconds > 0 || r.Warmup.Calls > 0 {
		fmt.Fprintf(w, "Warm-up:     %s, %d calls (not counted)\n", loadgen.FormatDuration(secs(r.Warmup.Seconds)), r.Warmup.Calls)
	}
	c := r.Connect
	line := fmt.Sprintf("%d sessions ready in %s", r.Sessions, loadgen.FormatDuration(c.Total))
	if c.Count > 0 {
		line += fmt.Sprintf("; each connect: start %s, %s %s (medians", loadgen.FormatDuration(c.P50), handshakeName(r), loadgen.FormatDuration(r.Handshake.P50))
		if c.Count > int64(r.Sessions) {
			line += fmt.Sprintf(" of %d connects", c.Count)
		}
		line += ")"
	}
	if c.Failed > 0 {
		line += fmt.Sprintf("; %d connects failed", c.Failed)
	}
	fmt.Fprintf(w, "Connect:     %s\n", line)
	fmt.Fprintf(w, "Supervision: %s\n", SupervisionLine(r))
	if p := ProtocolLine(r); p != "" {
		fmt.Fprintf(w, "Protocol:    %s\n", p)
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "Calls:       %d in %s = %.0f calls/s\n", r.Calls, loadgen.FormatDuration(r.Duration), r.CallsPerSecond)
	fmt.Fprintf(w, "Succeeded:   %d (%s)\n", r.OK, Percent(r.OK, r.Calls))
	fmt.Fprintf(w, "Failed:      %d (%s)\n", r.Failed, Percent(r.Failed, r.Calls))
	if r.Failed > 0 {
		for _, e := range ErrorClasses {
			n := r.Errors.Of(e.class)
			if n == 0 {
				continue
			}
			fmt.Fprintf(w, "  %-8d %s\n", n, e.label)
			if e.class == loadgen.RPCError && len(r.RPCCodes) > 0 {
				fmt.Fprintf(w, "           by code: %s\n", rpcCodesLine(r.RPCCodes))
			}
			if msg := r.FirstErrors[e.class.String()]; msg != "" {
				fmt.Fprintf(w, "           first: %s\n", OneLine(msg))
			}
		}
	}
	if r.Calls > 0 {
		fmt.Fprintln(w)
		printLatencyTable(w, r, open)
		printHistogram(w, r)
	}
	if s := r.Schedule; s != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Schedule:    %d %s due, %d sent (%.1f/s), %d late (sent more than %s behind schedule), %d never sent",
			s.Intended, resultUnit(r), s.Sent, s.SentPerSec, s.Late, loadgen.FormatDuration(time.Duration(s.LateAfterUS)*time.Microsecond), s.Unsent)
		if s.Dropped > 0 {
			fmt.Fprintf(w, " (%d dropped: due while every session was busy, the duration ended first)", s.Dropped)
		}
		fmt.Fprintln(w)
		if s.SendLag.Count > 0 {
			fmt.Fprintf(w, "             send lag p50 %s, p99 %s, max %s\n", loadgen.FormatDuration(s.SendLag.P50), loadgen.FormatDuration(s.SendLag.P99), loadgen.FormatDuration(s.SendLag.Max))
		}
	}
	if len(r.Methods) > 1 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "By request:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  \tcalls\tfailed\tcalls/s\tp50\tp99\tmax\t")
		for _, m := range r.Methods {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%.0f\t%s\t%s\t%s\t\n", m.Name, m.Calls, m.Failed, m.CallsPerSecond,
				loadgen.FormatDuration(m.Latency.P50), loadgen.FormatDuration(m.Latency.P99), loadgen.FormatDuration(m.Latency.Max))
		}
		tw.Flush()
	}
	if r.CutOff > 0 {
		fmt.Fprintf(w, "Cut off:     %d calls still under way at the graceful stop after the end (not measured)\n", r.CutOff)
	}
	printFlows(w, r)
	printMembers(w, r)
	if len(r.PerSession) > 1 && r.Calls > 0 {
		printSessionSpread(w, r)
	}
	if p := r.Processes; p != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Server:      %d processes; CPU %.0f%% of a core on average (peak %.0f%%); memory %s at the start, %s at the end (peak %s, largest process %s)\n",
			p.Processes, p.CPUPercent, p.CPUPercentMax, loadgen.FormatBytes(float64(p.RSSFirst)), loadgen.FormatBytes(float64(p.RSSLast)),
			loadgen.FormatBytes(float64(p.RSSMax)), loadgen.FormatBytes(float64(p.RSSPerProcessMax)))
	}
	cl := r.Client
	if cl.CPUSeconds > 0 || cl.HeapBytesMax > 0 {
		fmt.Fprintf(w, "Client:      CPU %.0f%% of a core (%s), Go heap peak %s, histograms %s\n",
			cl.CPUPercent, CoresText(r), loadgen.FormatBytes(float64(cl.HeapBytesMax)), loadgen.FormatBytes(float64(cl.HistogramBytes)))
	}
	if len(r.Thresholds) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Thresholds:")
		for _, t := range r.Thresholds {
			mark := "pass"
			if !t.Pass {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %s  %s\n", mark, ThresholdLine(t))
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		for _, s := range r.Warnings {
			fmt.Fprintf(w, "Warning:     %s\n", s)
		}
	}
	if p := PartialLine(r); p != "" {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Partial:     %s.\n", p)
	}
	if r.Interrupted {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Interrupted: the run was stopped early; calls cut short are not counted.")
	}
	if r.Aborted != "" {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Aborted:     %s; the figures are those of the run until then.\n", r.Aborted)
	}
	return nil
}

// ArrivalUnit is what one arrival of the open model is: a call, or a
// scripted flow's whole iteration (its steps are calls of their own).
func ArrivalUnit(calls, flows bool) string {
	switch {
	case flows && calls:
		return "arrivals (calls or flow iterations)"
	case flows:
		return "flow iterations"
	}
	return "calls"
}

func resultUnit(r *loadgen.Result) string { return ArrivalUnit(len(r.Workload) > 0, len(r.Flows) > 0) }

func loadLine(r *loadgen.Result) string {
	s := LoadShape(r.Model == string(loadgen.Open), r.Rate, r.StartLevel, r.Stages, r.Sessions, r.Concurrency, resultUnit(r))
	if r.Churn > 0 {
		s += fmt.Sprintf("; each session reconnects after %d calls", r.Churn)
	}
	return s
}

func printLatencyTable(w io.Writer, r *loadgen.Result, open bool) {
	l, s := r.Latency, r.Service
	rows := []struct {
		name   string
		lv, sv time.Duration
		note   string
	}{
		{"p50", l.P50, s.P50, "half the calls took less than this"},
		{"p90", l.P90, s.P90, ""},
		{"p95", l.P95, s.P95, ""},
		{"p99", l.P99, s.P99, "1 call in 100 took longer than this"},
		{"p99.9", l.P999, s.P999, "1 call in 1000 took longer than this"},
		{"max", l.Max, s.Max, ""},
		{"mean", l.Mean, s.Mean, ""},
	}
	if open {
		fmt.Fprintln(w, "Latency:     from each call's scheduled send time to its answer (a stall counts against")
		fmt.Fprintln(w, "             every call it held up); service = from the actual send to the answer")
		fmt.Fprintf(w, "  %-6s %10s %10s\n", "", "latency", "service")
		for _, x := range rows {
			fmt.Fprintf(w, "  %-6s %10s %10s   %s\n", x.name, loadgen.FormatDuration(x.lv), loadgen.FormatDuration(x.sv), x.note)
		}
		return
	}
	fmt.Fprintln(w, "Latency:     from sending each call to its answer, all calls (failures included)")
	for _, x := range rows {
		fmt.Fprintf(w, "  %-6s %10s   %s\n", x.name, loadgen.FormatDuration(x.lv), x.note)
	}
}

// printHistogram draws the latency distribution on the 1-2-5 grid.
func printHistogram(w io.Writer, r *loadgen.Result) {
	bs := loadgen.NiceBuckets(r.LatencyHist)
	if len(bs) == 0 {
		return
	}
	var peak, total int64
	for _, b := range bs {
		peak = max(peak, b.Count)
		total += b.Count
	}
	const width = 40
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Histogram:   calls per latency range")
	prev := int64(0)
	for _, b := range bs {
		bar := int((b.Count*width + peak - 1) / peak)
		label := fmt.Sprintf("%s-%s", loadgen.FormatDuration(time.Duration(prev)*time.Microsecond), loadgen.FormatDuration(time.Duration(b.LeUS)*time.Microsecond))
		if prev == 0 {
			label = "≤ " + loadgen.FormatDuration(time.Duration(b.LeUS)*time.Microsecond)
		}
		fmt.Fprintf(w, "  %17s |%-*s %d (%s)\n", label, width, strings.Repeat("■", bar), b.Count, Percent(b.Count, total))
		prev = b.LeUS
	}
}

// printSessionSpread shows how evenly the sessions shared the work and
// which was slowest.
func printSessionSpread(w io.Writer, r *loadgen.Result) {
	ss := append([]loadgen.SessionResult{}, r.PerSession...)
	sort.Slice(ss, func(i, j int) bool { return ss[i].Calls < ss[j].Calls })
	lo, hi := ss[0], ss[len(ss)-1]
	slow := r.PerSession[0]
	for _, s := range r.PerSession {
		if s.P99US > slow.P99US {
			slow = s
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Sessions:    calls per session from %d (session %d) to %d (session %d); slowest p99 %s (session %d)\n",
		lo.Calls, lo.Session, hi.Calls, hi.Session, loadgen.FormatDuration(time.Duration(slow.P99US)*time.Microsecond), slow.Session)
}

func rpcCodesLine(codes map[string]int64) string {
	keys := make([]string, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := ""
		var code int64
		fmt.Sscan(k, &code)
		if n, ok := RPCCodeNames[code]; ok {
			name = " " + n
		}
		parts[i] = fmt.Sprintf("%s%s ×%d", k, name, codes[k])
	}
	return strings.Join(parts, ", ")
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Percent renders n as a share of of, "-" when of is 0.
func Percent(n, of int64) string {
	if of == 0 {
		return "-"
	}
	p := 100 * float64(n) / float64(of)
	if p > 0 && p < 0.01 {
		return "<0.01%"
	}
	return fmt.Sprintf("%.2f%%", p)
}

// ThresholdLine says what a threshold checked and what was measured.
func ThresholdLine(tr loadgen.ThresholdResult) string {
	if tr.Note != "" {
		return fmt.Sprintf("%s (%s)", tr.Expr, tr.Note)
	}
	return fmt.Sprintf("%s (%s = %s)", tr.Expr, tr.Metric, loadgen.FormatValue(loadgen.Unit(tr.Unit), tr.Actual))
}

// LoadShape says in words what load a run applies: the line before the
// run and the report after it. sessions is 0 before a closed model's
// stages set it.
// unit is what arrives in the open model (ArrivalUnit).
func LoadShape(open bool, rate, start float64, stages []loadgen.Stage, sessions, concurrency int, unit string) string {
	switch {
	case open && len(stages) > 0:
		return fmt.Sprintf("open model, arrival rate (%s/s) ramping %s; at most %d in flight on each of %d sessions",
			unit, loadgen.StagesString(start, stages), concurrency, sessions)
	case open:
		return fmt.Sprintf("open model, %g %s/s in total; at most %d in flight on each of %d sessions", rate, unit, concurrency, sessions)
	case len(stages) > 0 && sessions > 0:
		return fmt.Sprintf("closed model, sessions ramping %s (up to %d), %d calls in flight each",
			loadgen.StagesString(start, stages), sessions, concurrency)
	case len(stages) > 0:
		return fmt.Sprintf("closed model, sessions ramping %s, %d calls in flight each", loadgen.StagesString(start, stages), concurrency)
	}
	return fmt.Sprintf("closed model, %d sessions x %d calls in flight (%d)", sessions, concurrency, sessions*concurrency)
}

// RPCCodeNames names the standard JSON-RPC and MCP error codes.
var RPCCodeNames = map[int64]string{
	messages.CodeParseError:       "parse error",
	messages.CodeInvalidRequest:   "invalid request",
	messages.CodeMethodNotFound:   "method not found",
	messages.CodeInvalidParams:    "invalid params",
	messages.CodeInternalError:    "internal error",
	messages.CodeResourceNotFound: "resource not found",
}

// OneLine keeps a cell on one line: the first line of s, tabs as spaces.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return strings.ReplaceAll(s, "\t", " ")
}
