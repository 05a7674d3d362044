package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed/disttest"
)

// freePorts returns n loopback ports free a moment ago: the members of a
// static cluster must know each other's addresses before they start.
func freePorts(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return out
}

// loadWorker is one engine worker process of a test's cluster.
type loadWorker struct {
	*servedProcess
	addr string // its actor remote: its address in a report's members[]
}

// workerListening finds, in the line engine worker prints once it is a
// member, "MEMBERSHIP, remote at REMOTE".
func workerListening(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, "membership at ")
	if !ok || !strings.HasPrefix(line, "worker: member ") {
		return "", false
	}
	return rest, true
}

// startLoadWorkers starts n engine worker processes on 127.0.0.1 joined
// into one cluster and waits until each says it serves.
func startLoadWorkers(t testing.TB, n int) ([]*loadWorker, string) {
	t.Helper()
	addrs := freePorts(t, n)
	join := strings.Join(addrs, ",")
	var out []*loadWorker
	for _, a := range addrs {
		p := startListening(t, nil, workerListening, "worker", "--listen", a, "--join", join, "--refresh", "200ms")
		_, remote, ok := strings.Cut(p.url, ", remote at ")
		require.True(t, ok, p.url)
		out = append(out, &loadWorker{servedProcess: p, addr: remote})
	}
	return out, join
}

// loadedCalls is the calls a worker's last "load progress" log line
// counted (-1 before any).
func (w *loadWorker) loadedCalls() int64 {
	text := w.stderrText()
	i := strings.LastIndex(text, "load progress")
	if i < 0 {
		return -1
	}
	j := strings.Index(text[i:], "calls=")
	if j < 0 {
		return -1
	}
	f := strings.Fields(text[i+j+len("calls="):])
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// runEngine runs the binary without a testing.T (for a goroutine); a
// failure to start is exit status -1.
func runEngine(ctx context.Context, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, engineBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		r.code, r.stderr = -1, err.Error()
	}
	return r
}

func readReport(t *testing.T, path string) *loadgen.Result { return readReportTB(t, path) }

func readReportTB(t testing.TB, path string) *loadgen.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r loadgen.Result
	require.NoError(t, json.Unmarshal(b, &r))
	return &r
}

// Three engine worker processes and a coordinator run an open-model load
// of fixed rate and count against engine serve: the merged report counts
// every call once and its percentiles are the members' histograms merged.
func TestLoadJoinCountsEveryCallOnce(t *testing.T) {
	srv := startServe(t, "http")
	workers, join := startLoadWorkers(t, 3)
	out := filepath.Join(t.TempDir(), "report.json")
	r := engine(t, "", "load", "--join", join, "--url", srv.url, "-r", "300", "-n", "600", "-s", "6", "-c", "4",
		"--interval", "200ms", "-O", "json="+out, "-O", "text")
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	rep := readReport(t, out)

	assert.EqualValues(t, 600, rep.Calls)
	assert.EqualValues(t, 600, rep.OK)
	assert.False(t, rep.Partial)
	require.Len(t, rep.Members, 3)
	var sum int64
	seen := map[string]bool{}
	for _, m := range rep.Members {
		assert.Equal(t, loadgen.MemberFinished, m.Status)
		assert.EqualValues(t, 2, m.Sessions)
		assert.EqualValues(t, 200, m.Count)
		assert.EqualValues(t, 200, m.Calls)
		sum += m.Calls
		seen[m.Address] = true
	}
	assert.EqualValues(t, rep.Calls, sum)
	assert.Len(t, seen, 3)
	disttest.LatencyIsTheMembersMerged(t, rep)
	disttest.ConnectIsTheMembersMerged(t, rep)
	assert.Contains(t, r.stdout, "Members:")
	for _, w := range workers {
		assert.Contains(t, w.stderrText(), "load run done", "worker %s ran a share", w.addr)
	}
}

// The same with one worker SIGKILLed half way through its share: the run
// is partial (exit 4), the dead member's calls up to its death count.
func TestLoadJoinMemberKilledHalfWay(t *testing.T) {
	srv := startServe(t, "http")
	workers, join := startLoadWorkers(t, 3)
	out := filepath.Join(t.TempDir(), "report.json")
	done := make(chan result, 1)
	// Owner: the test; exits when engine load does (its context ends it
	// after two minutes).
	go func() {
		done <- runEngine(t.Context(), "load", "--join", join, "--url", srv.url, "-r", "150", "-n", "1500", "-s", "3", "-c", "4",
			"--interval", "200ms", "-O", "json="+out)
	}()
	victim := workers[1]
	// Wait (bounded) until the victim has made a fifth of its share of 500.
	deadline := time.Now().Add(time.Minute)
	var atKill int64
	for atKill = victim.loadedCalls(); atKill < 100; atKill = victim.loadedCalls() {
		require.True(t, time.Now().Before(deadline), "the victim made no calls; stderr: %s", victim.stderrText())
		select {
		case r := <-done:
			t.Fatalf("engine load ended before the kill: %d %s %s", r.code, r.stdout, r.stderr)
		case <-victim.wrote: // it logged a line: look again
		case <-victim.exited:
			t.Fatalf("the victim exited early: %s", victim.stderrText())
		case <-time.After(time.Until(deadline)):
		}
	}
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGKILL))
	r := <-done
	require.Equal(t, exitPartial, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	rep := readReport(t, out)

	disttest.PartialRun(t, rep, victim.addr, atKill, 1500)
	assert.Contains(t, r.stderr, "partial run")
}
