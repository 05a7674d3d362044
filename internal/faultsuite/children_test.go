//go:build linux

package faultsuite

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/proctest"
)

// Children that escape their server (issue 27, item 3).

// holdEnv makes the re-executed test binary hold an engine with one
// stdio server (the scripted server in modeStopReading, which never sees
// the end of its stdin) until it is killed; it prints "ready" once the
// session is.
const holdEnv = "FAULTSUITE_HOLD_ENGINE"

// runHolder is the holding process's body.
func runHolder() int {
	var err error
	if selfExe, err = os.Executable(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	e := mcpengine.New(mcpengine.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "held", Server: scripted(modeStopReading, nil)})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	_ = s // modeStopReading: the server reads nothing more after the handshake
	os.Stdout.WriteString("ready\n")
	select {} // until killed
}

// gone reports whether pid no longer runs (exited, or a zombie waiting
// for its parent).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// waitGone waits until pid is gone, for at most within.
func waitGone(t *testing.T, pid int, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for !gone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: there is nothing to wait on
	}
	return true
}

// The process holding the engine is killed with SIGKILL: its server,
// which would never notice (it no longer reads stdin), dies with it
// (PR_SET_PDEATHSIG) instead of running on.
func TestServerDiesWithTheEngine(t *testing.T) {
	f := newFault(t, "stdio", "the engine's process SIGKILLed: its server dies with it (parent-death signal)", mcpengine.Config{})
	cmd := exec.Command(selfExe, "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the holder never got ready")
	require.Equal(t, "ready\n", line)
	servers := childrenOf(cmd.Process.Pid)
	require.Len(t, servers, 1, "the holder's server")
	killed := time.Now()
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	ok := waitGone(t, servers[0], slack)
	f.tookErr(time.Since(killed))
	if !ok {
		_ = syscall.Kill(servers[0], syscall.SIGKILL)
		t.Fatalf("server %d outlived the engine's process by %v", servers[0], slack)
	}
	// This process is a child subreaper once an engine in it started a
	// server (an earlier fault): the holder's orphaned server then came
	// here to die, and it is this test's to reap (stdio.Guard says so).
	if zombies, _ := proctest.Zombies(); slices.Contains(zombies, servers[0]) {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(servers[0], &ws, 0, nil)
	}
}

// A server whose background child left its process group (setsid, as a
// daemon does) is killed: the child dies when its server does (it is
// re-parented to the engine, a child subreaper, and killed and reaped
// when the connection closes); the restarted server's child dies when
// the session closes. Before, one such child outlived every spawn.
func TestEscapedChildDiesWithItsServer(t *testing.T) {
	f := newFault(t, "stdio", "a setsid child of the server: killed when the server dies, and at Close; none left", mcpengine.Config{})
	dir := t.TempDir()
	script := filepath.Join(dir, "escaping.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsetsid sleep 600 </dev/null >/dev/null 2>&1 &\necho \"$! $$\" >> \"$PIDS_FILE\"\nexec \"$ENGINE\" serve\n"), 0o755))
	pidsFile := filepath.Join(dir, "pids")
	spawns := func() [][2]int {
		b, err := os.ReadFile(pidsFile)
		require.NoError(t, err)
		var out [][2]int
		for line := range strings.Lines(string(b)) {
			fields := strings.Fields(line)
			require.Len(t, fields, 2)
			child, err1 := strconv.Atoi(fields[0])
			server, err2 := strconv.Atoi(fields[1])
			require.NoError(t, err1)
			require.NoError(t, err2)
			out = append(out, [2]int{child, server})
		}
		return out
	}
	s := f.connect("escaping", mcpengine.ServerConfig{Command: script, Env: map[string]string{"PIDS_FILE": pidsFile, "ENGINE": engineBin}})
	left := leftReady(t, s)
	first := spawns()
	require.Len(t, first, 1)
	escaped, server := first[0][0], first[0][1]
	require.False(t, gone(escaped), "the escaped child runs")

	killed := time.Now()
	require.NoError(t, syscall.Kill(server, syscall.SIGKILL))
	select {
	case <-left:
	case <-time.After(slack):
		t.Fatalf("still ready %v after its server was killed", slack)
	}
	ok := waitGone(t, escaped, slack)
	f.tookErr(time.Since(killed))
	assert.True(t, ok, "the escaped child %d outlived its server", escaped)
	if !ok {
		_ = syscall.Kill(escaped, syscall.SIGKILL)
	}

	waitState(t, s, mcpengine.StateReady, slack)
	second := spawns()
	require.Len(t, second, 2)
	escaped = second[1][0]
	require.False(t, gone(escaped), "the restarted server's escaped child runs")
	ctx, cancel := context.WithTimeout(context.Background(), slack)
	defer cancel()
	closed := time.Now()
	require.NoError(t, s.Close(ctx))
	ok = waitGone(t, escaped, slack)
	f.tookErr(time.Since(closed))
	assert.True(t, ok, "the escaped child %d outlived Close", escaped)
	if !ok {
		_ = syscall.Kill(escaped, syscall.SIGKILL)
	}
	zombies, err := proctest.Zombies()
	require.NoError(t, err)
	assert.Empty(t, zombies, "orphans re-parented to the engine are reaped")
}

// childrenOf lists the children of process pid.
func childrenOf(pid int) []int {
	var pids []int
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, _ := os.ReadDir(dir)
	for _, task := range tasks {
		b, _ := os.ReadFile(dir + task.Name() + "/children")
		for _, field := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(field); err == nil {
				pids = append(pids, child)
			}
		}
	}
	return pids
}
