package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// The HTML report is one file with everything inline (styles, SVG charts,
// no scripts): it opens offline, from a CI artifact, an e-mail or a
// browser with no network, and shows the same thing everywhere.

var loadHTML = template.Must(template.New("report").Funcs(template.FuncMap{
	"dur": func(d time.Duration) string { return loadgen.FormatDuration(d) },
	"us":  func(v int64) string { return loadgen.FormatDuration(time.Duration(v) * time.Microsecond) },
	"pct": func(n, of int64) string { return Percent(n, of) },
	"ratio": func(v float64) string {
		return loadgen.FormatPercent(v)
	},
	"bytes": func(v int64) string { return loadgen.FormatBytes(float64(v)) },
	"f1":    func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"f0":    func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) },
	"thr":   ThresholdLine,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>engine load: {{.R.Target}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:24px auto;max-width:940px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}
.sub{color:#5b6578}.big{display:grid;grid-template-columns:repeat(auto-fit,minmax(120px,1fr));gap:12px;margin:16px 0}
.card{border:1px solid #dde2ea;border-radius:8px;padding:10px 14px;min-width:0}.card b{display:block;font-size:22px;white-space:nowrap}
.cmd{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;color:#5b6578;margin-top:4px;word-break:break-all}
.card.bad b{color:#c62828}.card.good b{color:#2e7d32}
table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 12px 3px 0;text-align:right;vertical-align:top}th{color:#5b6578;font-weight:600}
td:first-child,th:first-child{text-align:left}.note{color:#5b6578;font-size:13px}
.warn{background:#fff4e5;border-left:4px solid #f57c00;padding:6px 10px;margin:6px 0}
.fail{color:#c62828;font-weight:600}.pass{color:#2e7d32;font-weight:600}
svg.chart{display:block;margin:8px 0 4px;max-width:100%;height:auto}
svg .ct{font-weight:600;font-size:13px;fill:#1d2330}svg .lbl{font-size:11px;fill:#5b6578}
svg .grid{stroke:#e7ebf1}svg .tick{stroke:#f1f3f7}svg .frame{fill:none;stroke:#c5ccd8}
svg .bar{fill:#4c78a8}svg .shade{fill:#f3f4f8}
code{background:#f3f4f8;padding:1px 4px;border-radius:3px}
</style></head><body>
<h1>Load test: {{.R.Target}}</h1>
<div class="sub">{{.Load}} · started {{.R.Started.Format "2006-01-02 15:04:05 UTC"}}{{with .Protocol}} · protocol {{.}}{{end}}{{with .R.Version}} · engine {{.}}{{end}}</div>
{{with .R.Command}}<div class="cmd">$ {{.}}</div>{{end}}
<div class="big">
<div class="card"><span>calls</span><b>{{.R.Calls}}</b></div>
<div class="card"><span>throughput</span><b>{{f0 .R.CallsPerSecond}}/s</b></div>
<div class="card {{if .R.Failed}}bad{{else}}good{{end}}"><span>failed</span><b>{{pct .R.Failed .R.Calls}}</b></div>
<div class="card"><span>p50 latency</span><b>{{dur .R.Latency.P50}}</b></div>
<div class="card"><span>p99 latency</span><b>{{dur .R.Latency.P99}}</b></div>
<div class="card"><span>max</span><b>{{dur .R.Latency.Max}}</b></div>
</div>
{{range .R.Warnings}}<div class="warn">{{.}}</div>{{end}}
{{with .Partial}}<div class="warn">Partial run: {{.}}.</div>{{end}}
{{if .R.Interrupted}}<div class="warn">The run was interrupted; calls cut short are not counted.</div>{{end}}
{{with .R.CutOff}}<div class="warn">{{.}} calls still under way at the graceful stop after the end were cut off (not measured).</div>{{end}}
{{with .R.Aborted}}<div class="warn">Aborted: {{.}}; the figures are those of the run until then.</div>{{end}}
{{if .R.Thresholds}}<h2>Thresholds</h2><table>{{range .R.Thresholds}}<tr><td class="{{if .Pass}}pass{{else}}fail{{end}}">{{if .Pass}}pass{{else}}FAIL{{end}}</td><td style="text-align:left">{{thr .}}</td></tr>{{end}}</table>{{end}}

<h2>Latency</h2>
<p class="note">{{if .Open}}Latency runs from each call's <em>scheduled</em> send time to its answer, so a stall is charged to every call it held up (no coordinated omission). Service time runs from the actual send.{{else}}From sending each call to its answer; failed calls included.{{end}}</p>
<table><tr><th></th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>mean</th></tr>
<tr><td>latency</td><td>{{dur .R.Latency.P50}}</td><td>{{dur .R.Latency.P90}}</td><td>{{dur .R.Latency.P95}}</td><td>{{dur .R.Latency.P99}}</td><td>{{dur .R.Latency.P999}}</td><td>{{dur .R.Latency.Max}}</td><td>{{dur .R.Latency.Mean}}</td></tr>
{{if .Open}}<tr><td>service</td><td>{{dur .R.Service.P50}}</td><td>{{dur .R.Service.P90}}</td><td>{{dur .R.Service.P95}}</td><td>{{dur .R.Service.P99}}</td><td>{{dur .R.Service.P999}}</td><td>{{dur .R.Service.Max}}</td><td>{{dur .R.Service.Mean}}</td></tr>{{end}}
<tr><td>handshake</td><td>{{dur .R.Handshake.P50}}</td><td>{{dur .R.Handshake.P90}}</td><td>{{dur .R.Handshake.P95}}</td><td>{{dur .R.Handshake.P99}}</td><td>{{dur .R.Handshake.P999}}</td><td>{{dur .R.Handshake.Max}}</td><td>{{dur .R.Handshake.Mean}}</td></tr>
</table>
{{.LatencyChart}}
{{.ThroughputChart}}
{{.InFlightChart}}
{{.HistChart}}
{{.SpectrumChart}}

<h2>Outcomes</h2>
<table><tr><th>class</th><th>calls</th><th>share</th><th style="text-align:left">first example</th></tr>
<tr><td>ok</td><td>{{.R.OK}}</td><td>{{pct .R.OK .R.Calls}}</td><td></td></tr>
{{range .Classes}}<tr><td>{{.Label}}</td><td>{{.N}}</td><td>{{pct .N $.R.Calls}}</td><td style="text-align:left">{{.First}}</td></tr>{{end}}
</table>
{{if .R.RPCCodes}}<p class="note">JSON-RPC error codes: {{.Codes}}</p>{{end}}
{{if gt (len .R.Methods) 1}}<h2>By request</h2>
<table><tr><th>request</th><th>calls</th><th>failed</th><th>calls/s</th><th>p50</th><th>p99</th><th>max</th></tr>
{{range .R.Methods}}<tr><td>{{.Name}}</td><td>{{.Calls}}</td><td>{{.Failed}}</td><td>{{f1 .CallsPerSecond}}</td><td>{{dur .Latency.P50}}</td><td>{{dur .Latency.P99}}</td><td>{{dur .Latency.Max}}</td></tr>{{end}}
</table>{{end}}
{{range .R.Flows}}<h2>Flow {{.Name}}</h2>
<p class="note">{{.Iterations}} iterations, {{.Failed}} failed ({{pct .Failed .Iterations}}){{if .Aborted}}, {{.Aborted}} ended at a failed step{{end}}; {{f1 .IterationsPerSecond}} iterations/s. An iteration runs every step in order; its time includes the pauses between steps, a step's does not.</p>
<table><tr><th>step</th><th>calls</th><th>failed</th><th>checks failed</th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>
<tr><td><em>whole iteration</em></td><td>{{.Iterations}}</td><td>{{.Failed}}</td><td>{{.Errors.Check}}</td><td>{{dur .Latency.P50}}</td><td>{{dur .Latency.P95}}</td><td>{{dur .Latency.P99}}</td><td>{{dur .Latency.Max}}</td></tr>
{{range .Steps}}<tr><td>{{.Name}}</td><td>{{.Calls}}</td><td>{{.Failed}}</td><td>{{.Errors.Check}}</td><td>{{dur .Latency.P50}}</td><td>{{dur .Latency.P95}}</td><td>{{dur .Latency.P99}}</td><td>{{dur .Latency.Max}}</td></tr>{{end}}
</table>
{{range $k, $v := .FirstErrors}}<p class="note">First {{$k}} failure: {{$v}}</p>{{end}}{{end}}
{{if .R.Members}}<h2>Members</h2>
<p class="note">Each member ran its share on its own clock from one agreed start; the run's percentiles merge the members' histograms.</p>
<table><tr><th>member</th><th>status</th><th>sessions</th><th>calls</th><th>failed</th><th>calls/s</th><th>p50</th><th>p99</th><th>max</th><th>CPU s</th></tr>
{{range .R.Members}}<tr><td>{{.Address}}</td><td>{{.Status}}</td><td>{{.Sessions}}</td><td>{{.Calls}}</td><td>{{.Failed}}</td><td>{{f1 .CallsPerSecond}}</td><td>{{dur .Latency.P50}}</td><td>{{dur .Latency.P99}}</td><td>{{dur .Latency.Max}}</td><td>{{f1 .ClientCPUSeconds}}</td></tr>{{end}}
</table>{{end}}
{{with .R.Schedule}}<h2>Schedule (open model)</h2>
<table><tr><th>due</th><th>sent</th><th>sent/s</th><th>late (&gt; {{us .LateAfterUS}})</th><th>never sent</th><th>dropped</th><th>send lag p99</th><th>send lag max</th></tr>
<tr><td>{{.Intended}}</td><td>{{.Sent}}</td><td>{{f1 .SentPerSec}}</td><td>{{.Late}}</td><td>{{.Unsent}}</td><td>{{.Dropped}}</td><td>{{dur .SendLag.P99}}</td><td>{{dur .SendLag.Max}}</td></tr></table>{{end}}

<h2>Sessions</h2>
<table><tr><th>sessions</th><th>connects</th><th>failed</th><th>all ready in</th><th>start p50</th><th>start max</th><th>{{.Handshake}} p50</th><th>{{.Handshake}} max</th><th>reconnects</th><th>restarts</th><th>not ready</th></tr>
<tr><td>{{.R.Sessions}}</td><td>{{.R.Connect.Count}}</td><td>{{.R.Connect.Failed}}</td><td>{{dur .R.Connect.Total}}</td><td>{{dur .R.Connect.P50}}</td><td>{{dur .R.Connect.Max}}</td><td>{{dur .R.Handshake.P50}}</td><td>{{dur .R.Handshake.Max}}</td><td>{{.R.Supervision.Reconnects}}</td><td>{{.R.Supervision.Restarts}}</td><td>{{f1 .R.Supervision.NotReadyS}} s</td></tr></table>
{{with .R.Processes}}<h2>Server processes</h2>
<table><tr><th>processes</th><th>CPU mean</th><th>CPU peak</th><th>memory first</th><th>last</th><th>peak</th><th>largest process</th></tr>
<tr><td>{{.Processes}}</td><td>{{f0 .CPUPercent}}%</td><td>{{f0 .CPUPercentMax}}%</td><td>{{bytes .RSSFirst}}</td><td>{{bytes .RSSLast}}</td><td>{{bytes .RSSMax}}</td><td>{{bytes .RSSPerProcessMax}}</td></tr></table>
<p class="note">CPU in percent of one core; memory is resident memory of all server processes together.</p>
{{$.CPUChart}}{{$.RSSChart}}{{end}}
<p class="note">Client: CPU {{f0 .R.Client.CPUPercent}}% of a core ({{.Cores}}), Go heap peak {{bytes .HeapMax}}, histograms {{bytes .R.Client.HistogramBytes}}. Report schema {{.R.Schema}}; the same figures are in <code>-O json</code>.</p>
</body></html>
`))

type classRow struct {
	Label, First string
	N            int64
}

// HTML writes the report as one self-contained page.
func HTML(w io.Writer, r *loadgen.Result) error {
	open := r.Model == string(loadgen.Open)
	data := map[string]any{
		"R": r, "Open": open, "Handshake": handshakeName(r), "Cores": CoresText(r), "Load": loadLine(r), "Protocol": ProtocolLine(r), "Partial": PartialLine(r), "HeapMax": int64(r.Client.HeapBytesMax),
	}
	var classes []classRow
	for _, e := range ErrorClasses {
		if n := r.Errors.Of(e.class); n > 0 {
			classes = append(classes, classRow{Label: e.label, N: n, First: OneLine(r.FirstErrors[e.class.String()])})
		}
	}
	data["Classes"] = classes
	if len(r.RPCCodes) > 0 {
		data["Codes"] = rpcCodesLine(r.RPCCodes)
	}
	var pts []loadgen.Point
	if r.Timeline != nil {
		pts = r.Timeline.Points
	}
	secFmt := func(v float64) string { return tickLabel(v) + "s" }
	usFmt := func(v float64) string { return loadgen.FormatDuration(time.Duration(v * float64(time.Microsecond))) }
	numFmt := tickLabel
	warm := r.Warmup.Seconds
	// What an interval measured (rates, percentiles, CPU) is drawn at
	// the interval's middle; what was read at an instant (calls in
	// flight, sessions, memory) at that instant, the interval's end.
	line := func(name, color string, dash bool, get func(loadgen.Point) float64) series {
		s := series{name: name, color: color, dash: dash}
		for _, p := range pts {
			s.pts = append(s.pts, xy{p.T - p.Seconds/2, get(p)})
		}
		return s
	}
	instant := func(name, color string, dash bool, get func(loadgen.Point) float64) series {
		s := series{name: name, color: color, dash: dash}
		for _, p := range pts {
			s.pts = append(s.pts, xy{p.T, get(p)})
		}
		return s
	}
	lat := &chart{title: "Latency over time (log scale)", xLabel: "seconds since start", logY: true, xFmt: secFmt, yFmt: usFmt,
		shade: warm, shadeLabel: "warm-up"}
	lat.series = []series{
		line("p50", "#2e7d32", false, func(p loadgen.Point) float64 { return float64(p.P50US) }),
		line("p90", "#f9a825", false, func(p loadgen.Point) float64 { return float64(p.P90US) }),
		line("p99", "#c62828", false, func(p loadgen.Point) float64 { return float64(p.P99US) }),
		line("max", "#757575", false, func(p loadgen.Point) float64 { return float64(p.MaxUS) }),
	}
	if open {
		lat.series = append(lat.series, line("service p99", "#6a1b9a", true, func(p loadgen.Point) float64 { return float64(p.ServiceP99US) }))
	}
	data["LatencyChart"] = lat.svg()

	thr := &chart{title: "Throughput: calls per second", xLabel: "seconds since start", xFmt: secFmt, yFmt: numFmt, shade: warm, shadeLabel: "warm-up"}
	thr.series = []series{
		line("calls/s", "#1565c0", false, func(p loadgen.Point) float64 { return p.CallsPerSecond }),
		line("errors/s", "#c62828", false, func(p loadgen.Point) float64 {
			if p.Seconds == 0 {
				return 0
			}
			return float64(p.Errors) / p.Seconds
		}),
	}
	if open {
		// The schedule averaged over each interval, like the rates beside
		// it: a ramp does not look behind schedule when nothing was late.
		thr.series = append(thr.series, line("scheduled", "#757575", true, func(p loadgen.Point) float64 { return p.DuePerSecond }))
	}
	data["ThroughputChart"] = thr.svg()

	fl := &chart{title: "Calls in flight and connected sessions", xLabel: "seconds since start", xFmt: secFmt, yFmt: numFmt, shade: warm, shadeLabel: "warm-up"}
	fl.series = []series{
		instant("in flight", "#1565c0", false, func(p loadgen.Point) float64 { return float64(p.InFlight) }),
		instant("sessions", "#757575", true, func(p loadgen.Point) float64 { return float64(p.Sessions) }),
	}
	data["InFlightChart"] = fl.svg()

	hist := &chart{title: "Latency distribution: calls per latency range (log scale)", xLabel: "latency", logX: true, xFmt: usFmt, yFmt: numFmt}
	prev := 0.0
	for i, b := range r.Histogram {
		lo := prev
		if i == 0 {
			lo = float64(b.LeUS) / math.Pow(10, 0.1)
		}
		hist.bars = append(hist.bars, bar{x0: lo, x1: float64(b.LeUS), y: float64(b.Count),
			label: fmt.Sprintf("%s–%s: %d calls", usFmt(lo), usFmt(float64(b.LeUS)), b.Count)})
		prev = float64(b.LeUS)
	}
	hist.xTicks = decadeTicks(hist.bars, usFmt)
	data["HistChart"] = hist.svg()

	spec := &chart{title: "Latency by percentile (HdrHistogram style)", xLabel: "percentile", logY: true, yFmt: usFmt,
		xFmt: func(v float64) string { return nines(v) }}
	ls := series{name: "latency", color: "#c62828"}
	ss := series{name: "service", color: "#6a1b9a", dash: true}
	for _, p := range r.Percentiles {
		x := ninesX(p.P)
		ls.pts = append(ls.pts, xy{x, float64(p.LatencyUS)})
		ss.pts = append(ss.pts, xy{x, float64(p.ServiceUS)})
	}
	spec.series = []series{ls}
	if open {
		spec.series = append(spec.series, ss)
	}
	for _, v := range []float64{0, 90, 99, 99.9, 99.99, 99.999} {
		spec.xTicks = append(spec.xTicks, tick{ninesX(v), nines(ninesX(v))})
	}
	data["SpectrumChart"] = spec.svg()

	if r.Processes != nil {
		cpu := &chart{title: "CPU: the server processes and the load generator (% of one core)", xLabel: "seconds since start", xFmt: secFmt, yFmt: numFmt, shade: warm, shadeLabel: "warm-up"}
		cpu.series = []series{
			line("server CPU", "#ef6c00", false, func(p loadgen.Point) float64 { return p.ServerCPU }),
			line("load generator CPU", "#1565c0", true, func(p loadgen.Point) float64 { return p.ClientCPU }),
		}
		data["CPUChart"] = cpu.svg()
		rss := &chart{title: "Server processes: resident memory together", xLabel: "seconds since start", xFmt: secFmt,
			yFmt: func(v float64) string { return loadgen.FormatBytes(v) }, shade: warm, shadeLabel: "warm-up"}
		rss.series = []series{instant("RSS", "#00838f", false, func(p loadgen.Point) float64 { return float64(p.ServerRSS) })}
		data["RSSChart"] = rss.svg()
	}
	var buf bytes.Buffer
	if err := loadHTML.Execute(&buf, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ninesX maps a percentile to its "number of nines": 90 → 1, 99 → 2.
func ninesX(p float64) float64 {
	if p >= 100 {
		return 5.3
	}
	return math.Min(-math.Log10(1-p/100), 5.3)
}

func nines(x float64) string {
	if x >= 5.3 {
		return "max"
	}
	p := 100 * (1 - math.Pow(10, -x))
	return strconv.FormatFloat(math.Round(p*1000)/1000, 'f', -1, 64) + "%"
}

// decadeTicks labels the powers of ten inside the bars' range.
func decadeTicks(bars []bar, f func(float64) string) []tick {
	if len(bars) == 0 {
		return nil
	}
	lo, hi := bars[0].x0, bars[len(bars)-1].x1
	var out []tick
	for v := math.Pow(10, math.Ceil(math.Log10(lo))); v <= hi; v *= 10 {
		out = append(out, tick{v, f(v)})
	}
	return out
}

// tickLabel writes an axis tick. Ticks are multiples of a step, whose
// products carry binary rounding (3 × 0.2 is 0.6000000000000001): six
// decimals are more than any axis here needs.
func tickLabel(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}
