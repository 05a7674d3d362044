//go:build linux

package mcpengine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/proctest"
)

// wrappedServe is `engine serve` behind a shell wrapper that, like npx, uvx
// and many launch scripts, leaves a child running beside the server: a
// background `sleep 60` holding the server's stdout and stderr. Every start
// appends "<server pid> <sleep pid>" to the returned file.
func wrappedServe(t *testing.T) (mcpengine.ServerConfig, string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "wrapper.sh")
	pids := filepath.Join(dir, "pids")
	require.NoError(t, os.WriteFile(script, []byte(`#!/bin/sh
sleep 60 &
echo "$$ $!" >> "$PIDS_FILE"
exec "$ENGINE" serve
`), 0o755))
	return mcpengine.ServerConfig{Command: script, Env: map[string]string{"PIDS_FILE": pids, "ENGINE": engineBin}}, pids
}

// wrappedPids reads the (server, sleep) pid pairs of every start so far.
func wrappedPids(t *testing.T, file string) (servers, orphans []int) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		require.Len(t, f, 2, line)
		server, err := strconv.Atoi(f[0])
		require.NoError(t, err)
		orphan, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		servers, orphans = append(servers, server), append(orphans, orphan)
	}
	return servers, orphans
}

// sysPidfdOpen is pidfd_open(2), numbered alike on every Linux architecture.
const sysPidfdOpen = 434

// awaitProcessExit waits until pid (any process, not only a child) has
// exited, for at most limit; it reports whether it did.
func awaitProcessExit(t *testing.T, pid int, limit time.Duration) bool {
	t.Helper()
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return true // gone (and reaped) already
	}
	require.Zero(t, errno, "pidfd_open %d", pid)
	defer syscall.Close(int(fd))
	// A pidfd polls readable once its process has exited.
	var set syscall.FdSet
	set.Bits[fd/64] |= 1 << (fd % 64)
	tv := syscall.NsecToTimeval(limit.Nanoseconds())
	for {
		n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

func TestKill9OfAServerWhoseChildHoldsStdoutIsNoticedAndItsGroupKilled(t *testing.T) {
	e := newEngine(t, mcpengine.Config{RequestTimeout: 20 * time.Second})
	busyServer, busyPids := wrappedServe(t)
	idleServer, idlePids := wrappedServe(t)
	ctx := testCtx(t, 60*time.Second)
	busy, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "busy", Server: busyServer})
	require.NoError(t, err)
	idle, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "idle", Server: idleServer})
	require.NoError(t, err)

	// The idle session must leave ready on its own: nobody calls it.
	leftReady := make(chan mcpengine.StateChange, 1)
	stop := idle.WatchState(func(c mcpengine.StateChange) {
		if c.From == mcpengine.StateReady {
			select {
			case leftReady <- c:
			default:
			}
		}
	})
	defer stop()

	const n = 100
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { // owner: this test; exits when the call returns
			defer wg.Done()
			_, err := busy.CallTool(ctx, "sleep", map[string]any{"ms": 120000})
			errs <- err
		}()
	}
	for busy.Stats().Requests < n {
		runtime.Gosched()
	}
	require.NoError(t, busy.Ping(ctx), "the server has read every call")

	busyServers, busyOrphans := wrappedPids(t, busyPids)
	idleServers, idleOrphans := wrappedPids(t, idlePids)
	require.Len(t, busyServers, 1)
	require.Len(t, idleServers, 1)
	require.NoError(t, syscall.Kill(busyServers[0], syscall.SIGKILL))
	require.NoError(t, syscall.Kill(idleServers[0], syscall.SIGKILL))

	// Every call fails as a lost connection, not by its 20 s timeout (nor
	// by the test's 60 s ctx), although the orphan still holds stdout open.
	wg.Wait()
	close(errs)
	for err := range errs {
		require.ErrorIs(t, err, mcpengine.ErrConnectionLost)
		require.NotErrorIs(t, err, mcpengine.ErrTimeout)
	}

	select {
	case c := <-leftReady:
		assert.Error(t, c.Err, "why it left ready")
	case <-ctx.Done():
		t.Fatalf("the idle session still says %v after its server was killed", idle.State())
	}

	// Each server's process group died with it: the orphans are gone.
	for _, pid := range append(busyOrphans, idleOrphans...) {
		require.True(t, awaitProcessExit(t, pid, 20*time.Second), "orphan sleep %d outlived its server", pid)
	}

	// Both sessions come back on new servers, each with a new orphan.
	waitState(t, busy, mcpengine.StateReady, 20*time.Second)
	waitState(t, idle, mcpengine.StateReady, 20*time.Second)
	require.NoError(t, busy.Ping(ctx))
	require.NoError(t, idle.Ping(ctx))
	busyServers, busyOrphans = wrappedPids(t, busyPids)
	idleServers, idleOrphans = wrappedPids(t, idlePids)

	closeCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, busy.Close(closeCtx))
	require.NoError(t, idle.Close(closeCtx))
	for _, pid := range append(busyOrphans, idleOrphans...) {
		require.True(t, awaitProcessExit(t, pid, 20*time.Second), "orphan sleep %d outlived Close", pid)
	}
	for _, pgid := range append(busyServers, idleServers...) {
		members, err := proctest.Group(pgid)
		require.NoError(t, err)
		assert.Empty(t, members, "process group %d is empty after Close", pgid)
	}
	zombies, err := proctest.Zombies()
	require.NoError(t, err)
	for _, pid := range append(busyServers, idleServers...) {
		assert.NotContains(t, zombies, pid, "server %d was reaped", pid)
	}
}
