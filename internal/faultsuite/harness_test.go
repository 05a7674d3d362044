//go:build linux

package faultsuite

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/proctest"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/supervisor"
)

// Bounds of the assertions. They tell "prompt" from "waited for a
// timeout" with room for a loaded CI machine (two shared cores, -race):
// requestTimeout is what a call the engine failed to notice would wait.
const (
	requestTimeout = 60 * time.Second
	// slack is how long after its deadline (or after the fault) a caller
	// may return and still count as prompt.
	slack = 10 * time.Second
	// settleWithin bounds the wait for goroutines, descriptors and
	// processes to go after Close.
	settleWithin = 20 * time.Second
)

var fastBackoff = testkit.FastBackoff()

// full reports whether the slow faults run too (FAULTS_FULL=1, set by
// make faults); without it the fast subset runs, as part of make test.
func full() bool { return os.Getenv("FAULTS_FULL") != "" }

// scale is n in the fast subset and fullN with FAULTS_FULL.
func scale(n, fullN int) int {
	if full() {
		return fullN
	}
	return n
}

func slowFault(t *testing.T) {
	if !full() {
		t.Skip("slow fault: set FAULTS_FULL=1 (make faults)")
	}
}

// fault is one misbehaving server under test: the engine that talks to
// it, what it measured, and the resources to check after Close.
type fault struct {
	t                       *testing.T
	name, transport, expect string
	eng                     *mcpengine.Engine

	mu       sync.Mutex
	took     []time.Duration // time to error of each failed call
	sessions []*mcpengine.Session
	servers  []func(context.Context) error // in-process HTTP servers, closed after the engine
	pids     []int                         // server processes seen (each leads its process group)

	baseFDs   int
	baseGoros goleak.Option
}

// newFault starts an engine for the fault; when the test ends, the engine
// and the servers are closed, the leak check runs and the fault's row is
// added to the table.
func newFault(t *testing.T, transport, expect string, cfg mcpengine.Config) *fault {
	t.Helper()
	if cfg.Backoff == (supervisor.Policy{}) {
		cfg.Backoff = fastBackoff
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = requestTimeout
	}
	name := strings.TrimPrefix(t.Name(), "Test")
	f := &fault{t: t, name: name, transport: transport, expect: expect, baseFDs: countFDs(), baseGoros: goleak.IgnoreCurrent()}
	f.eng = mcpengine.New(cfg)
	t.Cleanup(f.finish)
	return f
}

// ctx is a context for the test's own steps, far longer than any bound.
func (f *fault) ctx(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	f.t.Cleanup(cancel)
	return ctx
}

// connect opens a session and waits until it is ready.
func (f *fault) connect(name string, server mcpengine.ServerConfig) *mcpengine.Session {
	f.t.Helper()
	s, err := f.eng.Connect(f.ctx(60*time.Second), mcpengine.SessionConfig{Name: name, Server: server})
	require.NoError(f.t, err)
	f.addSession(s)
	f.notePIDs()
	return s
}

// open opens a session without waiting for it.
func (f *fault) open(name string, server mcpengine.ServerConfig) *mcpengine.Session {
	f.t.Helper()
	s, err := f.eng.Open(f.ctx(60*time.Second), mcpengine.SessionConfig{Name: name, Server: server})
	require.NoError(f.t, err)
	f.addSession(s)
	return s
}

func (f *fault) addSession(s *mcpengine.Session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = append(f.sessions, s)
}

// closeAfterEngine registers an in-process server to close once the
// engine is closed (its goroutines count in the leak check).
func (f *fault) closeAfterEngine(close func(context.Context) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.servers = append(f.servers, close)
}

// tookErr records one failed call's time to error.
func (f *fault) tookErr(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.took = append(f.took, d)
}

// notePIDs remembers the server processes running now, to check their
// process groups are empty after Close.
func (f *fault) notePIDs() {
	pids, err := proctest.Children()
	require.NoError(f.t, err)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pids {
		if !slices.Contains(f.pids, p) {
			f.pids = append(f.pids, p)
		}
	}
}

// restarts sums the sessions' restarts.
func (f *fault) restarts() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n uint64
	for _, s := range f.sessions {
		n += s.Stats().Restarts
	}
	return n
}

// finish closes everything and runs the leak check, then adds the row.
func (f *fault) finish() {
	t := f.t
	f.notePIDs()
	restarts := f.restarts()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	assert.NoError(t, f.eng.Close(ctx), "Engine.Close")
	for _, c := range f.servers {
		assert.NoError(t, c(ctx), "closing the HTTP server")
	}
	leak, detail := f.leakCheck()
	if leak != "" {
		t.Errorf("after Close: %s", detail)
	}
	if t.Skipped() {
		return
	}
	r := row{fault: f.name, transport: f.transport, expect: f.expect, restarts: restarts, leak: "ok", failed: t.Failed()}
	if leak != "" {
		r.leak = leak
	}
	f.mu.Lock()
	r.errors = len(f.took)
	if len(f.took) > 0 {
		d := slices.Clone(f.took)
		slices.Sort(d)
		r.p50, r.max = d[len(d)/2], d[len(d)-1]
	}
	f.mu.Unlock()
	table.mu.Lock()
	table.rows = append(table.rows, r)
	table.mu.Unlock()
}

// leakCheck waits (bounded) until goroutines and descriptors are back at
// their level before the fault and no server process is left, and says
// what is left otherwise: in short for the table, and in detail (""
// when nothing is).
func (f *fault) leakCheck() (short, detail string) {
	var problems, details []string
	deadline := time.Now().Add(settleWithin)
	// goleak.Find retries for about a second; goroutines that end on
	// their own schedule after Close (idle HTTP connections) get longer.
	for {
		err := goleak.Find(f.baseGoros)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			problems = append(problems, fmt.Sprintf("%d goroutines", strings.Count(err.Error(), " in state ")))
			details = append(details, "goroutines: "+err.Error())
			break
		}
	}
	var fds int
	var kids, zombies, group []int
	for {
		fds = countFDs()
		kids, _ = proctest.Children()
		zombies, _ = proctest.Zombies()
		group = group[:0]
		for _, pgid := range f.pids {
			members, _ := proctest.Group(pgid)
			group = append(group, members...)
		}
		if (fds <= f.baseFDs && len(kids) == 0 && len(zombies) == 0 && len(group) == 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling /proc: there is nothing to wait on
	}
	if fds > f.baseFDs {
		problems = append(problems, fmt.Sprintf("+%d fds", fds-f.baseFDs))
		details = append(details, fmt.Sprintf("%d descriptors, %d before", fds, f.baseFDs))
	}
	if len(kids) > 0 {
		problems = append(problems, fmt.Sprintf("%d children", len(kids)))
		details = append(details, fmt.Sprintf("child processes %v", kids))
	}
	if len(zombies) > 0 {
		problems = append(problems, fmt.Sprintf("%d zombies", len(zombies)))
		details = append(details, fmt.Sprintf("zombies %v", zombies))
	}
	if len(group) > 0 {
		problems = append(problems, fmt.Sprintf("%d orphans", len(group)))
		details = append(details, fmt.Sprintf("processes left in the servers' groups %v", group))
	}
	return strings.Join(problems, ", "), strings.Join(details, "; ")
}

func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// waitState waits until s is in state want, for at most within, and
// returns how long that took.
func waitState(t *testing.T, s *mcpengine.Session, want mcpengine.State, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	changed := make(chan struct{}, 1)
	stop := s.WatchState(func(mcpengine.StateChange) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for s.State() != want {
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("session %s: state %v after %v, want %v (last error: %v)", s.Name(), s.State(), within, want, s.LastError())
		}
	}
	return time.Since(start)
}

// row is one line of the table make faults prints.
type row struct {
	fault, transport, expect string
	errors                   int
	p50, max                 time.Duration
	restarts                 uint64
	leak                     string
	failed                   bool
}

var table struct {
	mu   sync.Mutex
	rows []row
}

func printTable(w io.Writer, took time.Duration) {
	table.mu.Lock()
	defer table.mu.Unlock()
	if len(table.rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nfault suite: %d faults in %.1fs (FAULTS_FULL=%v); time to error runs from the fault (or the call) to the caller's error\n\n", len(table.rows), took.Seconds(), full())
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\ttransport\texpected outcome\terrors\tto error p50\tmax\trestarts\tleaks\tresult")
	ms := func(d time.Duration, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	for _, r := range table.rows {
		res := "pass"
		if r.failed {
			res = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", r.fault, r.transport, r.expect, r.errors, ms(r.p50, r.errors), ms(r.max, r.errors), r.restarts, r.leak, res)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
