package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
	"github.com/mcpengine/mcpengine/messages"
)

// Exit statuses of engine load (and engine load compare).
const (
	exitLoadFailedCalls = 1   // calls failed (and no threshold judges errors), or the run could not be made
	exitThreshold       = 3   // a --threshold was crossed; compare: a regression beyond the tolerance
	exitPartial         = 4   // distributed run: a member was lost (no threshold crossed)
	exitInterrupted     = 130 // SIGINT/SIGTERM
)

// loadFlags are engine load's own flags.
type loadFlags struct {
	sessions    int
	concurrency int
	duration    time.Duration
	count       int64
	rate        float64
	model       string
	stages      string
	warmup      string
	churn       int64

	tool     string
	argsJSON string
	method   string
	scenario string
	data     string
	genArgs  bool
	noCheck  bool
	noPre    bool

	outputs    []string
	thresholds []string
	abortFail  bool
	abortGrace time.Duration
	maxErrRate string
	lateAfter  time.Duration
	grace      time.Duration
	interval   time.Duration
	quiet      bool
	prometheus string
	join       string
	listen     string
}

func newLoadCmd() *cobra.Command {
	var (
		f  targetFlags
		lf loadFlags
	)
	cmd := loadCommand(&f, &lf)
	cmd.AddCommand(newLoadCompareCmd())
	return cmd
}

// loadCommand is engine load with its flags bound to f and lf: the
// command line, and a distributed run's member parsing the coordinator's
// flags (loadMemberConfig).
func loadCommand(f *targetFlags, lf *loadFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Load-test a server: many sessions, concurrent calls, latency report",
		Long: `Load-test an MCP server and report throughput, latency percentiles and
failures by kind.

Two load models:
  closed (default)  -s sessions each keep -c calls in flight: the next call
                    starts when one returns. Measures what the server can do.
  open (-r RATE)    calls arrive at RATE per second in total (not per session),
                    whatever the server does; each session sends at most -c at
                    once. Latency is measured from the scheduled send time, so
                    a stall is charged to every call it held up (no coordinated
                    omission); "service" time is from the actual send.

--stages ramps the level linearly, k6 style ("10s:100,30s:500,10s:0", an
optional first bare number is the starting level): the arrival rate in the
open model, the number of active sessions in the closed one. --warmup runs
first (a duration, or a number of calls) and is not counted. --churn N
closes each session after N calls and opens a new one, for the whole run:
a server that leaks per session shows it in the memory figures. For stdio
targets every session is its own server process; their CPU and memory are
sampled once per --interval.

Every call is tools/call echo {"text":"hello"} against the embedded demo
server unless --call/--args, --method or --scenario say otherwise. --args
may be a Go template ({{.N}} request number, {{.Session}}, {{randInt 1 9}},
{{.Row.col}} from --data FILE.csv|.jsonl, ...). A tool result with
isError: true, or whose structuredContent does not match the tool's
outputSchema, is a failure.

A scenario's flows script what an agent does: steps in order (list, call,
read, prompt, complete), values taken from one answer by JSONPath into the
next request ({{.Vars.name}}), checks on the answers (a failed one is the
failure class "check"), pauses between steps. One iteration of a flow is
one item of the mix (-n counts it once; in the open model it is one
arrival); the report has each flow's iterations and each step's calls.
--threshold 'step:NAME p99<200ms' and 'flow:NAME p95<2s' judge one part.
See docs/LOAD-FLOWS.md.

Output: a live progress line on a terminal (plain lines every 10s
otherwise), then the report. -O FORMAT[=FILE] (repeatable) picks text,
json, csv, html (one self-contained offline file with charts) or prom
(Prometheus text); without =FILE it goes to stdout.

Thresholds (--threshold 'p99<200ms', repeatable) judge the run; a
misspelled one is a usage error. Exit status: 0 passed; 1 calls failed (when
no threshold judges errors) or the run could not be made; 2 usage error;
3 a threshold was crossed; 4 a distributed run lost a member (partial,
thresholds passed); 130 interrupted.

--join HOST:PORT[,...] runs the load on the engine worker members of a
cluster instead of here: this process coordinates, every member runs its
share (sessions, rate and counts split evenly) from one agreed start, and
the report merges their histograms, with a table per member. A member
lost during the run keeps its calls so far and makes the run partial.
See docs/LOAD-CLUSTER.md.`,
		Example: `  engine load
  engine load -s 8 -c 16 -z 30s
  engine load -r 500 -z 10s --threshold 'p99<50ms' --threshold 'error_rate<1%'
  engine load --model open --stages 10s:100,30s:500,10s:0
  engine load --stages 10s:20,20s:20 -c 4            # ramp to 20 sessions, hold
  engine load --churn 100 -z 1m                       # reconnect every 100 calls
  engine load --call add --args '{"a":{{randInt 1 9}},"b":{{.N}}}'
  engine load --scenario mix.yaml --data users.csv -O html=report.html
  engine load --scenario docs/flows/demo.yaml -n 200 --threshold 'step:say p99<50ms'
  engine load -n 10000 -O json=base.json && engine load compare base.json new.json
  engine load --stdio "npx -y @modelcontextprotocol/server-everything" --call echo --args '{"message":"hi"}'`,
		Args: exactArgs(0, "no arguments (see also: engine load compare)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runLoad(cmd, f, lf) },
	}
	f.register(cmd.Flags())
	fl := cmd.Flags()
	fl.IntVarP(&lf.sessions, "sessions", "s", 4, "number of sessions (server processes for stdio targets)")
	fl.IntVarP(&lf.concurrency, "concurrency", "c", 8, "calls in flight per session (open model: at most)")
	fl.DurationVarP(&lf.duration, "duration", "z", 5*time.Second, "measured time (ignored when only -n is given)")
	fl.Int64VarP(&lf.count, "count", "n", 0, "measured calls, all sessions together")
	fl.Float64VarP(&lf.rate, "rate", "r", 0, "open model: total arrival rate, calls per second over all sessions")
	fl.StringVar(&lf.model, "model", "", "closed or open (default: open with -r, else closed)")
	fl.StringVar(&lf.stages, "stages", "", `ramp "DUR:TARGET,...": rate (open) or sessions (closed), e.g. 10s:100,30s:500,10s:0`)
	fl.StringVar(&lf.warmup, "warmup", "", "run this long (e.g. 2s) or this many calls (e.g. 500) first, not counted")
	fl.Int64Var(&lf.churn, "churn", 0, "close each session after this many calls and open a new one")
	fl.StringVar(&lf.tool, "call", "echo", "tool to call")
	fl.StringVar(&lf.argsJSON, "args", "", `tool arguments as JSON or a Go template (default {"text":"hello"} for echo), or the params of --method`)
	fl.StringVar(&lf.method, "method", messages.MethodToolsCall, "JSON-RPC method: tools/call, ping, tools/list, or any other (params from --args)")
	fl.StringVar(&lf.scenario, "scenario", "", "YAML scenario: a weighted mix of calls, reads, prompts, lists and pings, and scripted flows")
	fl.StringVar(&lf.data, "data", "", "CSV (with header) or JSONL file whose rows feed {{.Row.field}} in templates")
	fl.BoolVar(&lf.genArgs, "gen-args", false, "generate the tool's arguments on every call from its inputSchema")
	fl.BoolVar(&lf.noCheck, "no-validate", false, "do not check tool results against their outputSchema")
	fl.BoolVar(&lf.noPre, "no-preflight", false, "start even if tools/list shows a tool called is missing or its arguments do not fit its inputSchema (to load-test error paths)")
	fl.StringArrayVarP(&lf.outputs, "output", "O", nil, "report format[=FILE]: text, json, csv, html, prom (repeatable)")
	fl.StringArrayVar(&lf.thresholds, "threshold", nil, `pass/fail check "[step:|flow:|request:NAME ]METRIC OP VALUE", e.g. 'p99<200ms' (repeatable)`)
	fl.BoolVar(&lf.abortFail, "abort-on-fail", false, "judge the thresholds on latency, errors and calls at every interval too, and stop the run at the first one crossed (exit 3)")
	fl.DurationVar(&lf.abortGrace, "abort-grace", 0, "measured time before --abort-on-fail and --max-error-rate judge anything")
	fl.StringVar(&lf.maxErrRate, "max-error-rate", "", `stop the run when more than this share of the calls so far failed, e.g. "50%" (a threshold error_rate<=X judged at every interval)`)
	fl.DurationVar(&lf.lateAfter, "late-after", loadgen.DefaultLateAfter, "open model: a call sent this far behind schedule counts as late")
	fl.DurationVar(&lf.grace, "graceful-stop", loadgen.DefaultGracefulStop, "how long calls under way when the duration ends (or an abort) may still take before they are cut off and counted as such (0: as long as --timeout; -n waits for the calls it counts); in the open model -z bounds the run, calls due but not started by its end are dropped")
	fl.DurationVar(&lf.interval, "interval", time.Second, "timeline and progress interval")
	fl.BoolVarP(&lf.quiet, "quiet", "q", false, "no progress output on stderr")
	fl.StringVar(&lf.prometheus, "prometheus", "", "serve the engine's metrics (mcp.client.*, sessions, reconnects) at ADDR/metrics during the run, e.g. 127.0.0.1:9464 (loopback only)")
	fl.StringVar(&lf.join, "join", "", "run as the coordinator of a distributed load test: join the cluster at HOST:PORT[,HOST:PORT...] and share the load among its engine worker members (docs/LOAD-CLUSTER.md)")
	fl.StringVar(&lf.listen, "listen", "127.0.0.1:0", "with --join: HOST:PORT this coordinator is reached at; every member must reach HOST (they send their reports to it)")
	return cmd
}

// runLoad checks the flags, runs the load and writes the reports.
func runLoad(cmd *cobra.Command, f *targetFlags, lf *loadFlags) error {
	cfg, outs, checks, sc, err := buildLoad(cmd, f, lf)
	if err != nil {
		return err
	}
	if lf.join != "" {
		return runLoadJoined(cmd, f, lf, cfg, outs, checks)
	}
	// Telemetry (--otel) starts before the engine and flushes after Run
	// closed it, so the last spans get out.
	stopTel, err := f.startTelemetry(cmd, lf.prometheus)
	if err != nil {
		return err
	}
	defer stopTel()
	cfg.Engine = f.engineConfig(cmd.ErrOrStderr())

	stderr := cmd.ErrOrStderr()
	textToStdout := outs.textOnStdout()
	if !lf.quiet && textToStdout {
		fmt.Fprintf(stderr, "load: %s against %s, %s ...\n", describeLoad(cfg), cfg.Label, runLimit(cfg))
	}
	var prog *progressPrinter
	if !lf.quiet {
		prog = newProgressPrinter(stderr)
		cfg.Progress = prog.update
	}
	res, err := loadgen.Run(cmd.Context(), *cfg)
	if prog != nil {
		prog.done()
	}
	if err := runError(cmd, f, sc, err); err != nil {
		return err
	}
	return finishLoad(cmd, res, outs, checks)
}

// buildLoad turns the flags into the run's configuration, its outputs,
// its thresholds and its server. The engine's configuration is left to
// the caller: it depends on telemetry started after.
func buildLoad(cmd *cobra.Command, f *targetFlags, lf *loadFlags) (*loadgen.Config, outputs, []*loadgen.Threshold, mcpengine.ServerConfig, error) {
	cfg, outs, checks, err := lf.config(cmd, f)
	if err != nil {
		return nil, nil, nil, mcpengine.ServerConfig{}, err
	}
	sc, label, err := f.target()
	if err != nil {
		return nil, nil, nil, sc, err
	}
	cfg.Label = label
	cfg.Timeout, cfg.ConnectTimeout = f.timeout, f.connectTimeout
	cfg.Target = func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Server: sc} }
	return cfg, outs, checks, sc, nil
}

// runError is what a run that could not be made returns: a usage error
// for a template, flow or preflight problem, else the connect failure.
func runError(cmd *cobra.Command, f *targetFlags, sc mcpengine.ServerConfig, err error) error {
	var (
		te *loadgen.TemplateError
		pe *loadgen.PreflightError
		fe *loadgen.FlowError
	)
	switch {
	case errors.As(err, &te):
		return &usageError{te}
	case errors.As(err, &fe):
		return &usageError{fe}
	case errors.As(err, &pe):
		return &usageError{fmt.Errorf("%w (--no-preflight runs it anyway)", pe)}
	case err != nil:
		return f.connectFailure(cmd, err, sc)
	}
	return nil
}

// finishLoad judges the thresholds, writes the reports and returns the
// exit status.
func finishLoad(cmd *cobra.Command, res *loadgen.Result, outs outputs, checks []*loadgen.Threshold) error {
	res.Command, res.Version = commandLine(cmd, nil), version()
	for _, t := range checks {
		res.Thresholds = append(res.Thresholds, t.Check(res))
	}
	if err := outs.write(cmd.OutOrStdout(), res); err != nil {
		return err
	}
	return loadStatus(res, checks)
}

// config turns the flags into a run configuration.
func (lf *loadFlags) config(cmd *cobra.Command, f *targetFlags) (*loadgen.Config, outputs, []*loadgen.Threshold, error) {
	changed := cmd.Flags().Changed
	if lf.sessions < 1 || lf.concurrency < 1 {
		return nil, nil, nil, usagef("-s and -c must be at least 1")
	}
	if lf.count < 0 || lf.duration < 0 || lf.rate < 0 || lf.churn < 0 {
		return nil, nil, nil, usagef("-n, -z, -r and --churn must not be negative")
	}
	if err := f.checkVersion(); err != nil {
		return nil, nil, nil, err
	}
	cfg := &loadgen.Config{
		Sessions: lf.sessions, Concurrency: lf.concurrency,
		Duration: lf.duration, Count: lf.count, Rate: lf.rate,
		Churn: lf.churn, NoOutputCheck: lf.noCheck, NoPreflight: lf.noPre,
		LateAfter: lf.lateAfter, Interval: lf.interval, GracefulStop: lf.grace,
	}
	if lf.grace == 0 {
		cfg.GracefulStop = -1 // no limit but the calls' own timeout
	}
	if changed("count") && !changed("duration") {
		cfg.Duration = 0 // -n alone: run until the count is reached
	}

	switch lf.model {
	case "":
		if lf.rate > 0 {
			cfg.Model = loadgen.Open
		} else {
			cfg.Model = loadgen.Closed
		}
	case "open":
		cfg.Model = loadgen.Open
	case "closed":
		cfg.Model = loadgen.Closed
		if lf.rate > 0 {
			return nil, nil, nil, usagef("-r is the open model's arrival rate; drop --model closed")
		}
	default:
		return nil, nil, nil, usagef("--model %q: use closed or open", lf.model)
	}
	if lf.stages != "" {
		start, stages, err := loadgen.ParseStages(lf.stages)
		if err != nil {
			return nil, nil, nil, usagef("--%v", err)
		}
		if changed("duration") {
			return nil, nil, nil, usagef("--stages set the run's length; drop -z")
		}
		if lf.rate > 0 {
			return nil, nil, nil, usagef("--stages ramp the rate; drop -r (use --model open)")
		}
		if cfg.Model == loadgen.Closed && changed("sessions") {
			return nil, nil, nil, usagef("in the closed model --stages set the number of sessions; drop -s")
		}
		cfg.Stages, cfg.StartLevel, cfg.Duration = stages, start, 0
		if cfg.Model == loadgen.Closed {
			cfg.Sessions = 0
		}
	} else if cfg.Model == loadgen.Open && lf.rate <= 0 {
		return nil, nil, nil, usagef("the open model needs -r RATE (calls per second in total) or --stages")
	}
	if cfg.Count == 0 && cfg.Duration == 0 && len(cfg.Stages) == 0 {
		return nil, nil, nil, usagef("give a duration (-z), a count (-n) or --stages")
	}
	if lf.warmup != "" {
		if n, err := strconv.ParseInt(lf.warmup, 10, 64); err == nil && n >= 0 {
			cfg.WarmupCount = n
		} else if d, err := time.ParseDuration(lf.warmup); err == nil && d >= 0 {
			cfg.WarmupDuration = d
		} else {
			return nil, nil, nil, usagef("--warmup %q: give a duration (2s) or a number of calls (500)", lf.warmup)
		}
		if len(cfg.Stages) > 0 && cfg.StartLevel <= 0 && (cfg.WarmupCount > 0 || cfg.WarmupDuration > 0) {
			return nil, nil, nil, usagef("--warmup runs at the stages' starting level, which is 0: start them from a level, e.g. --stages 50,10s:100")
		}
	}

	w, err := lf.workload(changed)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg.Workload = w

	outs, err := parseOutputs(lf.outputs, f.json)
	if err != nil {
		return nil, nil, nil, err
	}
	var checks []*loadgen.Threshold
	for _, s := range lf.thresholds {
		t, err := loadgen.ParseThreshold(s)
		if err != nil {
			return nil, nil, nil, usagef("%v", err)
		}
		checks = append(checks, t)
		if lf.abortFail && t.Scope == "" && loadgen.LiveMetric(t.Metric) {
			cfg.Abort = append(cfg.Abort, t)
		}
	}
	if lf.maxErrRate != "" {
		t, err := loadgen.ParseThreshold("error_rate<=" + lf.maxErrRate)
		if err != nil {
			return nil, nil, nil, usagef("--max-error-rate: %v", err)
		}
		checks = append(checks, t)
		cfg.Abort = append(cfg.Abort, t)
	}
	if lf.abortFail && len(cfg.Abort) == 0 {
		return nil, nil, nil, usagef("--abort-on-fail needs a --threshold on latency, errors or calls")
	}
	cfg.AbortGrace = lf.abortGrace
	return cfg, outs, checks, nil
}

// workload builds the request mix from --scenario or --call/--method/--args.
func (lf *loadFlags) workload(changed func(string) bool) (*loadgen.Workload, error) {
	var w *loadgen.Workload
	if lf.scenario != "" {
		for _, fl := range []string{"call", "args", "method", "gen-args"} {
			if changed(fl) {
				return nil, usagef("--%s and --scenario are exclusive: the scenario file lists the requests", fl)
			}
		}
		var err error
		if w, err = loadgen.LoadScenario(lf.scenario); err != nil {
			return nil, usagef("%v", err)
		}
	} else {
		method, tool := lf.method, lf.tool
		switch method {
		case "", "call", messages.MethodToolsCall:
			method = messages.MethodToolsCall
		default:
			if changed("call") {
				return nil, usagef("--call applies to --method tools/call only")
			}
			tool = ""
		}
		if lf.genArgs && lf.argsJSON != "" {
			return nil, usagef("--gen-args and --args are exclusive")
		}
		if lf.genArgs && method != messages.MethodToolsCall {
			return nil, usagef("--gen-args applies to tools/call only")
		}
		if lf.argsJSON != "" && !strings.Contains(lf.argsJSON, "{{") && !json.Valid([]byte(lf.argsJSON)) {
			return nil, usagef("--args is not valid JSON: %s", lf.argsJSON)
		}
		var args []byte
		if lf.argsJSON != "" {
			args = []byte(lf.argsJSON)
		}
		if lf.genArgs {
			w = &loadgen.Workload{Requests: []loadgen.Request{{Method: method, Tool: tool, GenArgs: true}}}
		} else {
			var err error
			if w, err = loadgen.SingleRequest(method, tool, args); err != nil {
				return nil, usagef("%v", err)
			}
		}
	}
	if lf.data != "" {
		rows, err := loadgen.LoadData(lf.data)
		if err != nil {
			return nil, usagef("--data: %v", err)
		}
		w.Rows, w.DataFile = rows, lf.data
	}
	return w, nil
}

// loadStatus is the exit status of a finished run: 130 if interrupted, 3
// if a threshold was crossed, 4 if a distributed run lost a member, 1 if
// calls failed and no threshold judged errors.
func loadStatus(r *loadgen.Result, checks []*loadgen.Threshold) error {
	if r.Interrupted {
		return &exitError{code: exitInterrupted, msg: "interrupted"}
	}
	if r.Aborted != "" {
		return &exitError{code: exitThreshold, msg: "aborted: " + r.Aborted}
	}
	var crossed []string
	judgesErrors := false
	for i, t := range checks {
		judgesErrors = judgesErrors || (t.Metric.Errors && t.Scope == "")
		if tr := r.Thresholds[i]; !tr.Pass {
			crossed = append(crossed, report.ThresholdLine(tr))
		}
	}
	if len(crossed) > 0 {
		return &exitError{code: exitThreshold, msg: "threshold crossed: " + strings.Join(crossed, "; ")}
	}
	if p := report.PartialLine(r); p != "" {
		// Passing thresholds judged a part of the load: not a pass.
		return &exitError{code: exitPartial, msg: "partial run: " + p}
	}
	if r.Failed > 0 && !judgesErrors {
		return &exitError{code: exitLoadFailedCalls, msg: fmt.Sprintf("%d of %d calls failed", r.Failed, r.Calls)}
	}
	return nil
}

// describeLoad says in words what the load is, as the report will.
func describeLoad(c *loadgen.Config) string {
	unit := "calls"
	if w := c.Workload; w != nil {
		unit = report.ArrivalUnit(len(w.Requests) > 0, len(w.Flows) > 0)
	}
	return report.LoadShape(c.Model == loadgen.Open, c.Rate, c.StartLevel, c.Stages, c.Sessions, c.Concurrency, unit)
}

func runLimit(c *loadgen.Config) string {
	var s string
	d, n := c.Duration, c.Count
	switch {
	case len(c.Stages) > 0 && n > 0:
		s = fmt.Sprintf("%d calls or the stages' end, whichever comes first", n)
	case len(c.Stages) > 0:
		var total time.Duration
		for _, st := range c.Stages {
			total += st.Duration
		}
		s = fmt.Sprintf("for %v", total)
	case n > 0 && d > 0:
		s = fmt.Sprintf("%d calls or %v, whichever comes first", n, d)
	case n > 0:
		s = fmt.Sprintf("%d calls", n)
	default:
		s = fmt.Sprintf("for %v", d)
	}
	switch {
	case c.WarmupDuration > 0:
		s += fmt.Sprintf(" after a %v warm-up", c.WarmupDuration)
	case c.WarmupCount > 0:
		s += fmt.Sprintf(" after %d warm-up calls", c.WarmupCount)
	}
	if c.Churn > 0 {
		s += fmt.Sprintf(", reconnecting every %d calls", c.Churn)
	}
	return s
}
