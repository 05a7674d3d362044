package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
)

// plainProgressEvery is how often progress is printed when stderr is not
// a terminal: often enough to see a long run is alive, rarely enough not
// to flood a CI log.
const plainProgressEvery = 10 * time.Second

// progressPrinter shows the run as it goes: the live view redrawn in place
// on a terminal, plain lines now and then otherwise.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	last  time.Time // last plain line
	shown int       // lines of the live view on screen
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w, last: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// update is Config.Progress: called once per interval by the run.
func (p *progressPrinter) update(pr loadgen.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		// Back to the view's first line, then each line cleared and
		// written again: one write, so the terminal never shows half.
		var b strings.Builder
		p.clear(&b)
		lines := liveView(pr)
		for _, l := range lines {
			b.WriteString("\033[2K" + l + "\n")
		}
		p.shown = len(lines)
		fmt.Fprint(p.w, b.String())
		return
	}
	if time.Since(p.last) >= plainProgressEvery {
		p.last = time.Now()
		fmt.Fprintf(p.w, "load: %s\n", progressLine(pr))
	}
}

// clear moves back over the live view and erases it.
func (p *progressPrinter) clear(b *strings.Builder) {
	if p.shown > 0 {
		fmt.Fprintf(b, "\033[%dA", p.shown)
		for range p.shown {
			b.WriteString("\033[2K\n")
		}
		fmt.Fprintf(b, "\033[%dA", p.shown)
	}
}

// done clears the live view before the report.
func (p *progressPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.shown > 0 {
		var b strings.Builder
		p.clear(&b)
		fmt.Fprint(p.w, b.String())
		p.shown = 0
	}
}

func progressLine(pr loadgen.Progress) string {
	var b strings.Builder
	el := pr.Elapsed.Round(time.Second)
	if pr.Planned > 0 {
		fmt.Fprintf(&b, "[%v/%v]", el, pr.Planned.Round(time.Second))
	} else {
		fmt.Fprintf(&b, "[%v]", el)
	}
	if pr.Warmup {
		b.WriteString(" warm-up")
	}
	l := pr.Last
	fmt.Fprintf(&b, " %d calls", pr.Calls)
	if pr.Count > 0 {
		fmt.Fprintf(&b, " of %d", pr.Count)
	}
	fmt.Fprintf(&b, ", %.0f/s, p50 %s p99 %s, errors %d (%s), in flight %d, sessions %d",
		l.CallsPerSecond, fmtDuration(time.Duration(l.P50US)*time.Microsecond), fmtDuration(time.Duration(l.P99US)*time.Microsecond),
		pr.Errors, report.Percent(pr.Errors, pr.Calls), l.InFlight, l.Sessions)
	if l.Late > 0 {
		fmt.Fprintf(&b, ", late %d", l.Late)
	}
	if pr.Behind > 0 {
		fmt.Fprintf(&b, ", behind %d (due, not started)", pr.Behind)
	}
	for _, m := range pr.Lost {
		fmt.Fprintf(&b, ", LOST member %s (%s, %d calls owed)", m.Address, m.Why, m.Owed)
	}
	if s := pr.Supervision; s.Reconnects > 0 || s.NotReadyNow > 0 {
		fmt.Fprintf(&b, ", reconnects %d, not ready now %d", s.Reconnects, s.NotReadyNow)
	}
	if l.ServerRSS > 0 {
		fmt.Fprintf(&b, ", server CPU %.0f%% RSS %s", l.ServerCPU, loadgen.FormatBytes(float64(l.ServerRSS)))
	}
	return b.String()
}
