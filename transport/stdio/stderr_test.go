//go:build linux

package stdio

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRingKeepsTheLastBytes(t *testing.T) {
	r := ring{size: 10}
	assert.Empty(t, r.bytes())
	r.write([]byte("abc"))
	assert.Equal(t, "abc", string(r.bytes()))
	r.write([]byte("defghij"))
	assert.Equal(t, "abcdefghij", string(r.bytes()))
	r.write([]byte("klm"))
	assert.Equal(t, "defghijklm", string(r.bytes()))
	r.write([]byte("0123456789ABC"))
	assert.Equal(t, "3456789ABC", string(r.bytes()))
	for i := range 25 {
		r.write([]byte{byte('a' + i)})
	}
	assert.Equal(t, "pqrstuvwxy", string(r.bytes()))
	assert.Equal(t, 10, cap(r.buf), "never grows past its size")

	none := ring{}
	none.write([]byte("x"))
	assert.Empty(t, none.bytes())
}

func TestLineSinkTruncatesLongLinesAndTrimsCR(t *testing.T) {
	var lines []string
	s := lineSink{fn: func(b []byte) { lines = append(lines, string(b)) }}
	long := bytes.Repeat([]byte{'L'}, MaxStderrLineBytes+100)
	s.feed([]byte("one\r\ntw"))
	s.feed([]byte("o\n\n"))
	s.feed(long[:3000])
	s.feed(append(long[3000:], '\n'))
	s.feed([]byte("unterminated"))
	s.finish()
	require.Len(t, lines, 4)
	assert.Equal(t, []string{"one", "two"}, lines[:2])
	assert.Equal(t, string(long[:MaxStderrLineBytes]), lines[2])
	assert.Equal(t, "unterminated", lines[3])
}

// countingHandler counts debug records and suppressed-line summaries.
type countingHandler struct {
	mu         sync.Mutex
	records    int
	suppressed int64
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records++
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "suppressed_lines" {
			h.suppressed += a.Value.Int64()
		}
		return true
	})
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

func TestStderrFloodNeverBlocksAndRingKeepsTheTail(t *testing.T) {
	const floodBytes = 50 << 20
	var lines, longest atomic.Int64
	h := &countingHandler{}
	cfg := childConfig(t, "stderr-flood", fmt.Sprintf("%s=%d", childBytesEnv, floodBytes))
	cfg.Logger = slog.New(h)
	cfg.StderrLine = func(line []byte) {
		lines.Add(1)
		if n := int64(len(line)); n > longest.Load() {
			longest.Store(n)
		}
	}
	c := startChild(t, cfg)

	// Keep the stdout side busy while the child floods stderr.
	const echoes = 200
	for i := range echoes {
		require.NoError(t, c.WriteFrames([]byte(fmt.Sprint("ping ", i))))
	}
	gotEchoes, done := 0, false
	for gotEchoes < echoes || !done {
		f := readString(t, c)
		if f == "flood-done" {
			done = true
		} else {
			require.Equal(t, fmt.Sprint("ping ", gotEchoes), f)
			gotEchoes++
		}
	}
	require.NoError(t, c.Close(context.Background()))

	tail := c.Stderr()
	assert.Len(t, tail, DefaultStderrRingBytes)
	assert.True(t, bytes.HasSuffix(tail, []byte("\nTAIL-MARKER\n")), "ring ends with the last bytes written")
	assert.Greater(t, lines.Load(), int64(floodBytes/1000))
	assert.Equal(t, int64(MaxStderrLineBytes), longest.Load(), "long lines are truncated")

	h.mu.Lock()
	defer h.mu.Unlock()
	t.Logf("%d stderr lines, %d logged records, %d suppressed", lines.Load(), h.records, h.suppressed)
	assert.Less(t, h.records, int(lines.Load()), "the logger is rate-limited")
	assert.Positive(t, h.suppressed)
}

// TestStderrOfAQuietChildIsDrainedOnDemand: what a child writes to stderr
// reaches the line callback and the ring each time, and no drain goroutine
// stays between the writes (on Linux the pipe waits in the exit watcher's
// epoll instance).
func TestStderrOfAQuietChildIsDrainedOnDemand(t *testing.T) {
	settleStdioGoroutines(t)
	lines := make(chan string, 4)
	cfg := childConfig(t, "stderr-echo")
	cfg.StderrLine = func(line []byte) { lines <- string(line) }
	c := startChild(t, cfg)
	for _, want := range []string{"first line", "second line"} {
		require.NoError(t, c.WriteFrames([]byte(want)))
		require.Equal(t, "ok", readString(t, c))
		select {
		case got := <-lines:
			require.Equal(t, want, got)
		case <-time.After(20 * time.Second):
			t.Fatalf("stderr line %q never arrived", want)
		}
		// The burst that drained it exits once the pipe is empty.
		for deadline := time.Now().Add(20 * time.Second); ; runtime.Gosched() {
			if drains, _, _ := stdioGoroutines(); drains == 0 {
				break
			}
			require.True(t, time.Now().Before(deadline), "a stderr drain stays after the line was read")
		}
	}
	require.NoError(t, c.Close(context.Background()))
	assert.Equal(t, "first line\nsecond line\n", string(c.Stderr()))
	settleStdioGoroutines(t)
}
