//go:build linux

package stdio

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

func TestEchoRoundTripOfManyFramesPreservesContentAndOrder(t *testing.T) {
	c := startChild(t, childConfig(t, "echo"))
	const n = 10000
	frame := func(i int) []byte {
		size := 10 + i%500
		if i%1000 == 999 {
			size = 200 << 10 // exercises the hand-over path for big frames
		}
		b := make([]byte, size)
		for j := range b {
			b[j] = 'a' + byte((i+j)%26)
		}
		copy(b, strconv.Itoa(i)+":")
		return b
	}
	writeErr := make(chan error, 1)
	go func() { // owner: this test; exits after writing all frames
		var batch [][]byte
		for i := range n {
			batch = append(batch, frame(i))
			if len(batch) == 100 {
				if err := c.WriteFrames(batch...); err != nil {
					writeErr <- err
					return
				}
				batch = batch[:0]
			}
		}
		writeErr <- nil
	}()
	for i := range n {
		got, err := c.ReadFrame()
		require.NoError(t, err)
		require.Equal(t, frame(i), got, "frame %d", i)
	}
	require.NoError(t, <-writeErr)
	require.NoError(t, c.Close(context.Background()))
	assert.Equal(t, 0, c.ExitCode())
}

func TestFramesOfOneWriteFramesCallArriveInOrder(t *testing.T) {
	c := startChild(t, childConfig(t, "echo"))
	frames := make([][]byte, 500)
	for i := range frames {
		frames[i] = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d}`, i))
	}
	require.NoError(t, c.WriteFrames(frames...))
	for i := range frames {
		require.Equal(t, string(frames[i]), readString(t, c))
	}
}

func TestWriteFramesRejectsNewlineAndEmptyFramesWithoutWritingAny(t *testing.T) {
	c := startChild(t, childConfig(t, "echo"))
	require.ErrorIs(t, c.WriteFrames([]byte("ok"), []byte("a\nb")), ErrNewlineInFrame)
	require.ErrorIs(t, c.WriteFrames([]byte("ok"), nil), ErrEmptyFrame)
	require.NoError(t, c.WriteFrames([]byte("first")))
	require.Equal(t, "first", readString(t, c))
}

func TestWorkingDirectoryIsHonoured(t *testing.T) {
	dir := t.TempDir()
	cfg := childConfig(t, "cwd")
	cfg.Dir = dir
	c := startChild(t, cfg)
	want, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	got, err := filepath.EvalSymlinks(readString(t, c))
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestDialOfMissingCommandFailsClearly(t *testing.T) {
	_, err := NewDialer(Config{Command: "mcpengine-no-such-command-xyz"}).Dial(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcpengine-no-such-command-xyz")
	assert.Contains(t, err.Error(), "not found")

	_, err = NewDialer(Config{Command: "mcpengine-no-such-command-xyz", Env: map[string]string{"PATH": t.TempDir()}}).Dial(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not found in the configured PATH")
	assert.ErrorIs(t, err, exec.ErrNotFound)
}

func TestDialOfNonExecutableFileFailsClearly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "server.sh")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644))
	_, err := NewDialer(Config{Command: p}).Dial(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "permission denied")
}

func TestDialOfMissingDirFails(t *testing.T) {
	cfg := childConfig(t, "echo")
	cfg.Dir = filepath.Join(t.TempDir(), "missing")
	_, err := Start(context.Background(), cfg)
	require.Error(t, err)
}

func TestDialWithDoneContextFailsWithoutStarting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewDialer(childConfig(t, "echo")).Dial(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestChildOutlivesCancelledDialContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := NewDialer(childConfig(t, "echo")).Dial(ctx)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	cancel()
	require.NoError(t, conn.WriteFrames([]byte("still alive")))
	got, err := conn.ReadFrame()
	require.NoError(t, err)
	require.Equal(t, "still alive", string(got))
}

func TestDialerStringNamesCommandButNotArgs(t *testing.T) {
	d := NewDialer(Config{Command: "npx", Args: []string{"--token=secret"}})
	assert.Equal(t, "stdio:npx", d.String())
}

func TestExitedChildGivesEOFThenCloseReportsExitCodeAndStderr(t *testing.T) {
	c := startChild(t, childConfig(t, "exit3"))
	_, err := c.ReadFrame()
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, c.Close(context.Background()))
	assert.Equal(t, 3, c.ExitCode())
	assert.Contains(t, string(c.Stderr()), "fatal: boom")
	_, err = c.ReadFrame()
	require.ErrorIs(t, err, transport.ErrClosed)
	require.ErrorIs(t, c.WriteFrames([]byte("x")), transport.ErrClosed)
}

func TestOverlongLineFailsFastWithoutBufferingIt(t *testing.T) {
	const lineBytes = 100 << 20
	for _, tc := range []struct {
		name     string
		max      int
		maxAlloc uint64 // bytes allocated while reading, all goroutines
	}{
		{"1MiB cap", 1 << 20, 8 << 20},
		// Reaching the default 32 MiB cap costs its doubling buffer (about
		// 64 MiB allocated in total, at most 48 MiB live) and nothing more.
		{"default cap", 0, 72 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := childConfig(t, "bigline", fmt.Sprintf("%s=%d", childBytesEnv, lineBytes))
			cfg.MaxFrameBytes = tc.max
			cfg.ShutdownGrace = 50 * time.Millisecond // the child is stuck writing: SIGTERM it
			c := startChild(t, cfg)

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := c.ReadFrame()
			elapsed := time.Since(start)
			runtime.GC()
			runtime.ReadMemStats(&after)

			var tooLarge *transport.FrameTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			wantLimit := tc.max
			if wantLimit == 0 {
				wantLimit = transport.DefaultMaxFrameBytes
			}
			assert.Equal(t, wantLimit, tooLarge.Limit)
			allocated := after.TotalAlloc - before.TotalAlloc
			live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			t.Logf("read error after %v; allocated %d KiB, live delta %d KiB", elapsed, allocated>>10, live>>10)
			assert.Less(t, allocated, tc.maxAlloc)
			assert.Less(t, live, int64(8<<20), "the partial frame must be released")

			_, err = c.ReadFrame()
			require.ErrorAs(t, err, &tooLarge, "the connection stays failed")
			require.NoError(t, c.Close(context.Background()))
		})
	}
}

func TestIdleConnsCostOneGoroutineForThemAllBesidesTheirReaders(t *testing.T) {
	const n = 20
	cfg := childConfig(t, "echo")
	settleStdioGoroutines(t) // earlier tests' goroutines may still be exiting
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	before := runtime.NumGoroutine()
	conns := make([]*Conn, n)
	for i := range conns {
		conns[i] = startChild(t, cfg)
	}
	during := runtime.NumGoroutine()
	drains, watchers, others := stdioGoroutines()
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	t.Logf("%d idle conns: %+d goroutines (%d stderr drains, %d exit watchers, %d others), %d bytes heap per conn without a reader",
		n, during-before, drains, watchers, others, (int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc))/n)
	require.Equal(t, 1, during-before, "no goroutine per idle conn, one exit watcher for them all")
	require.Zero(t, drains, "no stderr drain while the children are quiet")
	require.Equal(t, 1, watchers, "one exit watcher (pidfds and stderr pipes in one epoll instance)")
	require.Zero(t, others)

	for _, c := range conns {
		require.NoError(t, c.Close(context.Background()))
	}
	settleStdioGoroutines(t)
	require.Equal(t, before, runtime.NumGoroutine(), "Close ends every goroutine it or Start started")
}

// stdioGoroutines counts the live goroutines running this package's code,
// other than test goroutines: stderr drains (a burst started by the
// watcher, or a drain of its own started by newConn), the exit watcher, and
// others.
func stdioGoroutines() (drains, watchers, others int) {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		switch {
		case !strings.Contains(g, "mcpengine/transport/stdio."),
			strings.Contains(g, "testing.tRunner"), strings.Contains(g, "testing.(*M)"):
		case strings.Contains(g, "created by github.com/mcpengine/mcpengine/transport/stdio.newConn"):
			// The drain, possibly not yet scheduled (then its top frame is
			// the compiler's newConn.gowrap1 rather than drainStderr).
			drains++
		case strings.Contains(g, "created by github.com/mcpengine/mcpengine/transport/stdio.(*stderrDrain).ready"):
			drains++
		case strings.Contains(g, "created by github.com/mcpengine/mcpengine/transport/stdio.(*exitWatcher).add"):
			watchers++
		default:
			others++
		}
	}
	return drains, watchers, others
}

// exitWatcherGoroutines counts the running exit watchers (at most one).
func exitWatcherGoroutines() int {
	_, watchers, _ := stdioGoroutines()
	return watchers
}

// settleStdioGoroutines yields until the goroutines of closed conns, which
// may linger for an instant after signalling that they are done, are gone.
func settleStdioGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		drains, watchers, others := stdioGoroutines()
		if drains+watchers+others == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d drains, %d exit watchers and %d other stdio goroutines linger", drains, watchers, others)
		runtime.Gosched()
	}
}
