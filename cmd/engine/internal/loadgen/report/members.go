package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// printMembers is a distributed run's table: each member's share and
// figures, and what happened to a member that did not finish.
func printMembers(w io.Writer, r *loadgen.Result) {
	if len(r.Members) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Members:     %d (each member's percentiles are its own; the run's above merge their histograms)\n", len(r.Members))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  member\tstatus\tsessions\tcalls\tfailed\tcalls/s\tp50\tp99\tmax\tCPU s\t")
	for _, m := range r.Members {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%.0f\t%s\t%s\t%s\t%.1f\t\n", m.Address, m.Status, m.Sessions, m.Calls, m.Failed,
			m.CallsPerSecond, loadgen.FormatDuration(m.Latency.P50), loadgen.FormatDuration(m.Latency.P99),
			loadgen.FormatDuration(m.Latency.Max), m.ClientCPUSeconds)
	}
	tw.Flush()
}

// PartialLine says what a partial run's figures hold ("" when the run
// is whole).
func PartialLine(r *loadgen.Result) string {
	if !r.Partial {
		return ""
	}
	var lost, calls, owed int64
	for _, m := range r.Members {
		if m.Status != loadgen.MemberFinished {
			lost++
			calls += m.Calls
			owed += m.Owed
		}
	}
	rest := "the rest of their share was never made"
	if owed > 0 {
		rest = fmt.Sprintf("%d calls of their share were never made", owed)
	}
	return fmt.Sprintf("%d of %d members did not finish; the figures count %d calls they made before, %s",
		lost, len(r.Members), calls, rest)
}
