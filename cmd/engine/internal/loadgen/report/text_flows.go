package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/messages"
)

// printWorkload says what the run sent: one request, or the mix of
// requests and flows with each one's share.
func printWorkload(w io.Writer, r *loadgen.Result) {
	if len(r.Workload) == 1 && len(r.Flows) == 0 {
		what := r.Method
		if r.Method == messages.MethodToolsCall {
			what += " " + r.Tool
		}
		if len(r.Args) > 0 {
			what += " " + string(r.Args)
		}
		fmt.Fprintf(w, "Request:     %s\n", what)
		return
	}
	total := 0.0
	for _, q := range r.Workload {
		total += q.Weight
	}
	for _, f := range r.Flows {
		total += f.Weight
	}
	switch {
	case len(r.Flows) == 0:
		fmt.Fprintf(w, "Requests:    %d kinds, picked at random by weight:\n", len(r.Workload))
	case len(r.Workload) == 0 && len(r.Flows) == 1:
		fmt.Fprintf(w, "Flow:        %s, %d steps in order per iteration\n", r.Flows[0].Name, len(r.Flows[0].Steps))
		return
	default:
		fmt.Fprintf(w, "Workload:    %d requests and %d flows, picked at random by weight:\n", len(r.Workload), len(r.Flows))
	}
	for _, q := range r.Workload {
		fmt.Fprintf(w, "               %5.1f%%  %s\n", 100*q.Weight/total, q.Name)
	}
	for _, f := range r.Flows {
		fmt.Fprintf(w, "               %5.1f%%  flow %s (%d steps)\n", 100*f.Weight/total, f.Name, len(f.Steps))
	}
}

// printFlows writes each flow's iterations and its steps, one row each.
func printFlows(w io.Writer, r *loadgen.Result) {
	for _, f := range r.Flows {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Flow %s:  %d iterations, %d failed (%s)", f.Name, f.Iterations, f.Failed, Percent(f.Failed, f.Iterations))
		if f.Aborted > 0 {
			fmt.Fprintf(w, ", %d ended at a failed step", f.Aborted)
		}
		fmt.Fprintf(w, "; %.1f iterations/s\n", f.IterationsPerSecond)
		if f.Iterations > 0 {
			fmt.Fprintf(w, "  iteration (pauses included): p50 %s, p95 %s, p99 %s, max %s\n",
				loadgen.FormatDuration(f.Latency.P50), loadgen.FormatDuration(f.Latency.P95),
				loadgen.FormatDuration(f.Latency.P99), loadgen.FormatDuration(f.Latency.Max))
		}
		for _, e := range ErrorClasses {
			if msg := f.FirstErrors[e.class.String()]; msg != "" {
				fmt.Fprintf(w, "  first %s failure: %s\n", e.class, OneLine(msg))
			}
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  step\tcalls\tfailed\tcheck\tp50\tp95\tp99\tmax\t")
		for _, s := range f.Steps {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", s.Name, s.Calls, s.Failed, s.Errors.Check,
				loadgen.FormatDuration(s.Latency.P50), loadgen.FormatDuration(s.Latency.P95),
				loadgen.FormatDuration(s.Latency.P99), loadgen.FormatDuration(s.Latency.Max))
		}
		tw.Flush()
	}
}
