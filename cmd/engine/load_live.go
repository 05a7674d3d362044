package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
)

// liveWidth is the width of the live view's progress bar, in cells.
const liveWidth = 30

// liveView renders the run so far as the block of lines a terminal shows
// while it goes (redrawn in place every interval), as oha and k6 do: where
// the run stands, the last interval's rate and latency, what is in flight,
// and the failures by class.
func liveView(pr loadgen.Progress) []string {
	l := pr.Last
	dur := func(us int64) string { return fmtDuration(time.Duration(us) * time.Microsecond) }

	var head strings.Builder
	head.WriteString("engine load ")
	done, total := 0.0, 0.0
	switch {
	case pr.Count > 0:
		done, total = float64(pr.Calls), float64(pr.Count)
	case pr.Planned > 0:
		done, total = pr.Elapsed.Seconds(), pr.Planned.Seconds()
	}
	if total > 0 {
		fill := min(liveWidth, int(done/total*liveWidth+0.5))
		head.WriteString(strings.Repeat("█", fill) + strings.Repeat("░", liveWidth-fill) + " ")
	}
	fmt.Fprintf(&head, "%v", pr.Elapsed.Round(time.Second))
	if pr.Planned > 0 {
		fmt.Fprintf(&head, " / %v", pr.Planned.Round(time.Second))
	}
	fmt.Fprintf(&head, "   %d calls", pr.Calls)
	if pr.Count > 0 {
		fmt.Fprintf(&head, " of %d", pr.Count)
	}
	if pr.Warmup {
		head.WriteString("   (warm-up: not counted)")
	}

	rate := fmt.Sprintf("  rate       %8.0f calls/s", l.CallsPerSecond)
	if l.DuePerSecond > 0 {
		rate += fmt.Sprintf(" (scheduled %.0f/s)", l.DuePerSecond)
	}
	rate += fmt.Sprintf("   in flight %d   sessions %d", l.InFlight, l.Sessions)
	if l.Late > 0 {
		rate += fmt.Sprintf("   late %d", l.Late)
	}
	if pr.Behind > 0 {
		rate += fmt.Sprintf("   BEHIND: %d calls due not started (dropped if still due at the end)", pr.Behind)
	}

	lat := fmt.Sprintf("  latency    p50 %s   p90 %s   p99 %s   max %s   (last %.0fs)",
		dur(l.P50US), dur(l.P90US), dur(l.P99US), dur(l.MaxUS), l.Seconds)

	errs := fmt.Sprintf("  errors     %d (%s)", pr.Errors, report.Percent(pr.Errors, pr.Calls))
	var classes []string
	for _, e := range []struct {
		name string
		n    int64
	}{
		{"transport", pr.ErrorClasses.Transport}, {"timeout", pr.ErrorClasses.Timeout}, {"rpc", pr.ErrorClasses.RPC},
		{"tool", pr.ErrorClasses.Tool}, {"schema", pr.ErrorClasses.Schema}, {"other", pr.ErrorClasses.Other},
		{"check", pr.ErrorClasses.Check},
	} {
		if e.n > 0 {
			classes = append(classes, fmt.Sprintf("%s %d", e.name, e.n))
		}
	}
	if len(classes) > 0 {
		errs += ": " + strings.Join(classes, ", ")
	}

	lines := []string{head.String(), rate, lat, errs}
	for _, m := range pr.Lost {
		l := fmt.Sprintf("  LOST       member %s (%s): its share no longer runs", m.Address, m.Why)
		if m.Owed > 0 {
			l += fmt.Sprintf("; %d calls it owed not made so far", m.Owed)
		}
		lines = append(lines, l)
	}
	if s := pr.Supervision; s.Reconnects > 0 || s.Restarts > 0 || s.NotReadyNow > 0 {
		sup := fmt.Sprintf("  sessions   %d reconnects (%d restarts), %s not ready in all", s.Reconnects, s.Restarts, fmtDuration(s.NotReady))
		if s.NotReadyNow > 0 {
			sup += fmt.Sprintf("   NOT READY NOW: %d", s.NotReadyNow)
		}
		lines = append(lines, sup)
	}
	if l.ServerRSS > 0 || l.ClientCPU > 0 {
		// Only the processes the engine started are measured: a URL
		// target's server is not one of them.
		server := "n/a"
		if l.ServerRSS > 0 {
			server = fmt.Sprintf("%.0f%%", l.ServerCPU)
		}
		res := fmt.Sprintf("  CPU        server %s   load generator %.0f%%", server, l.ClientCPU)
		if l.ServerRSS > 0 {
			res += "   server memory " + loadgen.FormatBytes(float64(l.ServerRSS))
		}
		lines = append(lines, res)
	}
	return lines
}
