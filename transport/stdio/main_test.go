//go:build linux

package stdio

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// These tests are Linux-only (they use /proc, pidfd_open and waitid
// semantics); framing_test.go and example_test.go run everywhere.
//
// The test binary doubles as the MCP server subprocess: when childModeEnv is
// set, TestMain runs one of the child behaviours in child_test.go and exits
// instead of running tests. No external tools are needed.
const (
	childModeEnv  = "STDIO_TEST_CHILD"
	childBytesEnv = "STDIO_TEST_BYTES"
	childAfterEnv = "STDIO_TEST_AFTER"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childModeEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// childConfig returns a Config that runs this test binary in the given child
// mode; extra holds KEY=VALUE pairs for the child's environment.
func childConfig(t *testing.T, mode string, extra ...string) Config {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	// Without atexit_sleep_ms=0 a -race child sleeps a second before exiting.
	env := map[string]string{childModeEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		require.True(t, ok, kv)
		env[k] = v
	}
	return Config{Command: exe, Env: env, ShutdownGrace: 5 * time.Second}
}

// startChild starts a child and makes sure it is closed when the test ends.
func startChild(t *testing.T, cfg Config) *Conn {
	t.Helper()
	c, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func readString(t *testing.T, c interface{ ReadFrame() ([]byte, error) }) string {
	t.Helper()
	b, err := c.ReadFrame()
	require.NoError(t, err)
	return string(b)
}

// exitSignal returns the signal that ended the reaped child, or 0.
func exitSignal(t *testing.T, c *Conn) syscall.Signal {
	t.Helper()
	ps := c.ProcessState()
	require.NotNil(t, ps)
	ws := ps.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}

// exitWatch opens a pidfd on pid so that awaitExit can later wait for its
// exit without being its parent. A pid that no longer exists has exited
// (and was reaped by its parent): awaitExit then reports true at once.
func exitWatch(t *testing.T, pid int) (awaitExit func(timeout time.Duration) bool) {
	t.Helper()
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return func(time.Duration) bool { return true }
	}
	require.Zero(t, errno, "pidfd_open")
	t.Cleanup(func() { _ = syscall.Close(int(fd)) })
	return func(timeout time.Duration) bool {
		// A pidfd polls readable once its process has exited (zombie or gone).
		var set syscall.FdSet
		set.Bits[fd/64] |= 1 << (fd % 64)
		tv := syscall.NsecToTimeval(timeout.Nanoseconds())
		for {
			n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return err == nil && n == 1
		}
	}
}

// processGone reports whether pid no longer runs: it does not exist, or it
// is a zombie waiting for its (new) parent to reap it.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X')
}
