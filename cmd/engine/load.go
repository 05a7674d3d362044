package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/loadgen"
	"github.com/mcpengine/mcpengine/messages"
)

func newLoadCmd() *cobra.Command {
	var (
		f           targetFlags
		sessions    int
		concurrency int
		duration    time.Duration
		count       int64
		tool        string
		argsJSON    string
		method      string
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Load-test a server: many sessions, concurrent calls, latency report",
		Long: `Load-test a server. load opens -s sessions (each its own server process for
stdio targets), then keeps -c calls in flight on each session until -z has
passed or -n calls were made in all (whichever comes first), and reports
throughput, latency percentiles and failures by kind.

By default every call is tools/call echo {"text":"hello"} against the
embedded demo server. A tool result with isError: true counts as a failure.
Latency is measured per call from send to answer, failures included;
connecting the sessions is timed separately and not part of it.

The exit status is 1 if any call failed, 130 if interrupted.`,
		Example: `  engine load
  engine load -s 8 -c 16 -z 30s
  engine load -n 10000 --method ping
  engine load --call add --args '{"a":1,"b":2}' --json
  engine load --demo-args "--delay 5ms" -c 64
  engine load --stdio "npx -y @modelcontextprotocol/server-everything" --call echo --args '{"message":"hi"}'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sessions < 1 || concurrency < 1 {
				return usagef("-s and -c must be at least 1")
			}
			if count < 0 || duration < 0 {
				return usagef("-n and -z must not be negative")
			}
			if cmd.Flags().Changed("count") && !cmd.Flags().Changed("duration") {
				duration = 0 // -n alone: run until the count is reached
			}
			if count == 0 && duration == 0 {
				return usagef("give a duration (-z) or a count (-n)")
			}
			if f.strict && f.protocolVersion == "" {
				return usagef("--strict needs --protocol-version")
			}
			cfg := loadgen.Config{
				Engine:         f.engineConfig(cmd.ErrOrStderr()),
				Sessions:       sessions,
				Concurrency:    concurrency,
				Duration:       duration,
				Count:          count,
				Timeout:        f.timeout,
				ConnectTimeout: f.connectTimeout,
			}
			switch method {
			case "", "call", messages.MethodToolsCall:
				cfg.Method, cfg.Tool = messages.MethodToolsCall, tool
			default:
				if cmd.Flags().Changed("call") {
					return usagef("--call applies to --method tools/call only")
				}
				cfg.Method = method
			}
			if argsJSON != "" {
				if !json.Valid([]byte(argsJSON)) {
					return usagef("--args is not valid JSON: %s", argsJSON)
				}
				cfg.Args = messages.RawMessage(argsJSON)
			}
			sc, label, err := f.target()
			if err != nil {
				return err
			}
			cfg.Label = label
			cfg.Target = func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Server: sc} }

			if !f.json {
				fmt.Fprintf(cmd.ErrOrStderr(), "load: %d sessions x %d concurrent calls against %s, %s ...\n",
					sessions, concurrency, label, runLimit(duration, count))
			}
			res, err := loadgen.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if f.json {
				if err := printJSON(w, res); err != nil {
					return err
				}
				return loadStatus(res)
			}
			printLoadReport(w, res)
			return loadStatus(res)
		},
	}
	f.register(cmd.Flags())
	fl := cmd.Flags()
	fl.IntVarP(&sessions, "sessions", "s", 4, "number of sessions (server processes for stdio targets)")
	fl.IntVarP(&concurrency, "concurrency", "c", 8, "concurrent calls per session")
	fl.DurationVarP(&duration, "duration", "z", 5*time.Second, "how long to run (ignored when only -n is given)")
	fl.Int64VarP(&count, "count", "n", 0, "total number of calls (all sessions together)")
	fl.StringVar(&tool, "call", "echo", "tool to call")
	fl.StringVar(&argsJSON, "args", "", `tool arguments as JSON (default {"text":"hello"} for echo), or the params of --method`)
	fl.StringVar(&method, "method", messages.MethodToolsCall, "JSON-RPC method: tools/call, ping, or any other (params from --args)")
	return cmd
}

// loadStatus is the exit status of a finished run: 130 if interrupted, 1
// if any call failed.
func loadStatus(r *loadgen.Result) error {
	switch {
	case r.Interrupted:
		return &exitError{code: 130, msg: "interrupted"}
	case r.Failed > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("%d of %d calls failed", r.Failed, r.Calls)}
	}
	return nil
}

func runLimit(d time.Duration, n int64) string {
	switch {
	case n > 0 && d > 0:
		return fmt.Sprintf("%d calls or %v, whichever comes first", n, d)
	case n > 0:
		return fmt.Sprintf("%d calls", n)
	}
	return fmt.Sprintf("for %v", d)
}

// printLoadReport prints a Result for people.
func printLoadReport(w io.Writer, r *loadgen.Result) {
	what := r.Method
	if r.Method == messages.MethodToolsCall {
		what += " " + r.Tool
	}
	if len(r.Args) > 0 {
		what += " " + string(r.Args)
	}
	fmt.Fprintf(w, "Target:      %s\n", r.Target)
	fmt.Fprintf(w, "Request:     %s\n", what)
	fmt.Fprintf(w, "Sessions:    %d, %d concurrent calls each (%d in flight)\n", r.Sessions, r.Concurrency, r.Sessions*r.Concurrency)
	fmt.Fprintf(w, "Connect:     all ready in %s (per session: min %s, mean %s, max %s)\n",
		fmtDuration(r.Connect.Total), fmtDuration(r.Connect.Min), fmtDuration(r.Connect.Mean), fmtDuration(r.Connect.Max))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Calls:       %d in %s = %.0f calls/s\n", r.Calls, fmtDuration(r.Duration), r.CallsPerSecond)
	fmt.Fprintf(w, "Succeeded:   %d (%s)\n", r.OK, percent(r.OK, r.Calls))
	fmt.Fprintf(w, "Failed:      %d (%s)\n", r.Failed, percent(r.Failed, r.Calls))
	if r.Failed > 0 {
		for _, e := range []struct {
			n          int64
			key, label string
		}{
			{r.Errors.RPC, "rpc", "server error answers (JSON-RPC error)"},
			{r.Errors.Tool, "tool", "tool errors (result isError: true)"},
			{r.Errors.Timeout, "timeout", "timeouts (no answer within --timeout)"},
			{r.Errors.Transport, "transport", "transport errors (connection lost, session closed)"},
			{r.Errors.Other, "other", "other (rejected by the engine, bad result)"},
		} {
			if e.n == 0 {
				continue
			}
			fmt.Fprintf(w, "  %-8d %s\n", e.n, e.label)
			if msg := r.FirstErrors[e.key]; msg != "" {
				fmt.Fprintf(w, "           first: %s\n", oneLine(msg))
			}
		}
	}
	if r.Calls > 0 {
		l := r.Latency
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Latency (per call, all calls):")
		fmt.Fprintf(w, "  p50   %9s   half the calls were faster than this\n", fmtDuration(l.P50))
		fmt.Fprintf(w, "  p90   %9s\n", fmtDuration(l.P90))
		fmt.Fprintf(w, "  p95   %9s\n", fmtDuration(l.P95))
		fmt.Fprintf(w, "  p99   %9s   1 call in 100 was slower than this\n", fmtDuration(l.P99))
		fmt.Fprintf(w, "  p99.9 %9s\n", fmtDuration(l.P999))
		fmt.Fprintf(w, "  max   %9s\n", fmtDuration(l.Max))
		fmt.Fprintf(w, "  mean  %9s   (min %s)\n", fmtDuration(l.Mean), fmtDuration(l.Min))
	}
	if r.Interrupted {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Interrupted: the run was stopped early; calls cut short are not counted.")
	}
}

func percent(n, of int64) string {
	if of == 0 {
		return "-"
	}
	p := 100 * float64(n) / float64(of)
	if p > 0 && p < 0.01 {
		return "<0.01%"
	}
	return fmt.Sprintf("%.2f%%", p)
}
