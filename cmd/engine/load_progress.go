package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/mcpengine/mcpengine/internal/loadgen"
	"github.com/mcpengine/mcpengine/internal/loadgen/report"
)

// plainProgressEvery is how often progress is printed when stderr is not
// a terminal: often enough to see a long run is alive, rarely enough not
// to flood a CI log.
const plainProgressEvery = 10 * time.Second

// progressPrinter shows the run as it goes: one line rewritten in place on
// a terminal, plain lines now and then otherwise.
type progressPrinter struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	last time.Time // last plain line
	wide bool      // a live line is on screen
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
	line := progressLine(pr)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.wide = true
		return
	}
	if time.Since(p.last) >= plainProgressEvery {
		p.last = time.Now()
		fmt.Fprintf(p.w, "load: %s\n", line)
	}
}

// done clears the live line before the report.
func (p *progressPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.wide {
		fmt.Fprint(p.w, "\r\033[K")
		p.wide = false
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
	if l.ServerRSS > 0 {
		fmt.Fprintf(&b, ", server CPU %.0f%% RSS %s", l.ServerCPU, loadgen.FormatBytes(float64(l.ServerRSS)))
	}
	return b.String()
}
