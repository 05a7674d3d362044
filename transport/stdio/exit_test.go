//go:build linux

package stdio

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/proctest"
)

// wrapperConfig runs a shell script as the server, as npx, uvx and shell
// wrappers do: it starts `sleep 60` in the background (in the same process
// group, holding the same stdout and stderr), prints the sleep's pid, and
// then runs body (by default it becomes this test binary in echo mode).
func wrapperConfig(t *testing.T, body string) Config {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	if body == "" {
		body = `exec "$STDIO_TEST_EXE"`
	}
	script := filepath.Join(t.TempDir(), "wrapper.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsleep 60 &\necho $!\n"+body+"\n"), 0o755))
	cfg := childConfig(t, "echo", "STDIO_TEST_EXE="+exe)
	cfg.Command = script
	return cfg
}

// readOrphan reads the pid the wrapper script printed and watches its exit.
// running says the server is known to be alive, so its group is too; a
// server that exits on its own may take the orphan with it before this
// reads its pid, and then awaitExit reports true at once.
func readOrphan(t *testing.T, c *Conn, running bool) (pid int, awaitExit func(time.Duration) bool) {
	t.Helper()
	pid, err := strconv.Atoi(readString(t, c))
	require.NoError(t, err)
	if running {
		require.False(t, processGone(pid), "the orphan-to-be runs")
		return pid, exitWatch(t, pid)
	}
	return pid, exitWatch(t, pid)
}

// readFrameWithin runs ReadFrame on a goroutine and waits for it for at
// most limit, a bound far beyond what a working connection needs: a
// ReadFrame still blocked then is the bug (it would block until Close).
func readFrameWithin(t *testing.T, c *Conn, limit time.Duration) ([]byte, error) {
	t.Helper()
	type result struct {
		frame []byte
		err   error
	}
	done := make(chan result, 1)
	go func() { // owner: this test; exits when ReadFrame returns (Close, in the test's cleanup, at the latest)
		b, err := c.ReadFrame()
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.frame, r.err
	case <-time.After(limit):
		t.Fatalf("ReadFrame still blocked %v after the server exited: a process it left behind holds its stdout", limit)
		return nil, nil
	}
}

// groupMembers lists the processes of process group pgid that still run
// (zombies excluded: they are dead, waiting for a parent to reap them).
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	pids, err := proctest.Group(pgid)
	require.NoError(t, err)
	return pids
}

// zombieChildren lists this process's children that exited and were not
// reaped.
func zombieChildren(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	self := strconv.Itoa(os.Getpid())
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) >= 2 && fields[0] == "Z" && fields[1] == self {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestKilledServerEndsReadFrameWhileAChildItLeftHoldsStdout(t *testing.T) {
	c := startChild(t, wrapperConfig(t, ""))
	orphan, orphanExited := readOrphan(t, c, true)
	require.NoError(t, c.WriteFrames([]byte("ping")))
	require.Equal(t, "ping", readString(t, c), "the wrapper became the server")

	require.NoError(t, syscall.Kill(c.Pid(), syscall.SIGKILL))
	_, err := readFrameWithin(t, c, 20*time.Second)
	require.ErrorIs(t, err, io.EOF, "the end of the server is the end of the stream")
	var exited *ProcessExitedError
	require.ErrorAs(t, err, &exited)
	assert.Equal(t, c.Pid(), exited.Pid)
	assert.Equal(t, syscall.SIGKILL, exited.Signal)
	assert.Equal(t, -1, exited.Code)
	assert.Contains(t, err.Error(), "killed")

	// The group dies with its leader, before anyone calls Close.
	require.True(t, orphanExited(10*time.Second), "orphan %d outlived its server", orphan)
	_, err = c.ReadFrame()
	require.ErrorAs(t, err, &exited, "the connection stays ended")

	require.NoError(t, c.Close(context.Background()))
	assert.Equal(t, syscall.SIGKILL, exitSignal(t, c))
	assert.Empty(t, groupMembers(t, c.Pid()), "nothing of the process group runs after Close")
	assert.NotContains(t, zombieChildren(t), c.Pid(), "Close reaped the server")
}

func TestServerThatExitsDeliversWhatItWroteThenItsExitCode(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantFrames []string
		wantErr    error
	}{
		{"whole frames", `echo last-words; echo '{"id":1}'; exit 7`, []string{"last-words", `{"id":1}`}, io.EOF},
		{"cut frame", `printf 'cut-off'; exit 7`, nil, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startChild(t, wrapperConfig(t, tc.body))
			_, orphanExited := readOrphan(t, c, false)
			// Whether the exit is seen before or after these bytes are read,
			// none of them is lost.
			for _, want := range tc.wantFrames {
				got, err := readFrameWithin(t, c, 20*time.Second)
				require.NoError(t, err)
				require.Equal(t, want, string(got))
			}
			_, err := readFrameWithin(t, c, 20*time.Second)
			require.ErrorIs(t, err, tc.wantErr)
			var exited *ProcessExitedError
			require.ErrorAs(t, err, &exited)
			assert.Equal(t, 7, exited.Code)
			assert.Zero(t, exited.Signal)
			assert.Contains(t, err.Error(), "exited with code 7")
			require.True(t, orphanExited(10*time.Second), "the orphan outlived its server")
			require.NoError(t, c.Close(context.Background()))
			assert.Equal(t, 7, c.ExitCode())
		})
	}
}

func TestCloseOfAWrapperLeavesNoProcessOfItsGroup(t *testing.T) {
	for _, grace := range []time.Duration{5 * time.Second, 50 * time.Millisecond} {
		t.Run(fmt.Sprint("grace=", grace), func(t *testing.T) {
			cfg := wrapperConfig(t, "")
			cfg.ShutdownGrace = grace
			c := startChild(t, cfg)
			orphan, orphanExited := readOrphan(t, c, true)
			require.NoError(t, c.Close(context.Background()))
			require.True(t, orphanExited(10*time.Second), "orphan %d outlived Close", orphan)
			assert.Empty(t, groupMembers(t, c.Pid()))
			assert.NotContains(t, zombieChildren(t), c.Pid())
		})
	}
}

func TestOneExitWatcherServesEveryConnAndStopsWithTheLast(t *testing.T) {
	settleStdioGoroutines(t)
	conns := make([]*Conn, 10)
	for i := range conns {
		conns[i] = startChild(t, childConfig(t, "echo"))
	}
	require.Equal(t, 1, exitWatcherGoroutines(), "one watcher for all conns")

	// A conn whose server exits is told, the others keep working.
	require.NoError(t, syscall.Kill(conns[0].Pid(), syscall.SIGKILL))
	_, err := readFrameWithin(t, conns[0], 20*time.Second)
	// No orphan holds its stdout, so plain end of file may come first.
	require.ErrorIs(t, err, io.EOF)
	for _, c := range conns[1:] {
		require.NoError(t, c.WriteFrames([]byte("alive")))
		require.Equal(t, "alive", readString(t, c))
	}

	for i, c := range conns {
		g := currentWatchGen()
		require.NotNil(t, g)
		require.NoError(t, c.Close(context.Background()))
		if i < len(conns)-1 {
			require.Same(t, g, currentWatchGen(), "the watcher stays while conns remain")
			continue
		}
		assert.Nil(t, currentWatchGen())
		select {
		case <-g.done:
		default:
			t.Fatal("Close of the last conn returned before the watcher goroutine ended")
		}
	}
	settleStdioGoroutines(t)

	// And a new conn starts a new one.
	c := startChild(t, childConfig(t, "echo"))
	require.Equal(t, 1, exitWatcherGoroutines())
	require.NoError(t, c.Close(context.Background()))
	assert.Nil(t, currentWatchGen())
}

func currentWatchGen() *watchGen {
	watcher.mu.Lock()
	defer watcher.mu.Unlock()
	return watcher.gen
}
