//go:build linux

package stdio

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

// InterruptRead wakes a ReadFrame blocked on the child's stdout, and the
// connection goes on as if nothing happened; an interruption made while
// nobody reads is kept for the next ReadFrame, and several count as one.
func TestInterruptReadWakesABlockedReadAndLosesNothing(t *testing.T) {
	c := startChild(t, childConfig(t, "echo"))

	errc := make(chan error, 1)
	go func() { // owner: this test; returns once interrupted
		_, err := c.ReadFrame()
		errc <- err
	}()
	waitBlockedReading(t) // so that the interruption wakes a parked read, not just the next one
	c.InterruptRead()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, transport.ErrReadInterrupted)
	case <-time.After(5 * time.Second):
		t.Fatal("InterruptRead did not wake the blocked ReadFrame")
	}

	require.NoError(t, c.WriteFrames([]byte("one")))
	assert.Equal(t, "one", readString(t, c))

	c.InterruptRead()
	c.InterruptRead()
	_, err := c.ReadFrame()
	require.ErrorIs(t, err, transport.ErrReadInterrupted)
	require.NoError(t, c.WriteFrames([]byte("two"), []byte("three")))
	assert.Equal(t, "two", readString(t, c), "two interruptions counted as one")
	assert.True(t, c.Buffered(), "the echo of three came with two")
	assert.Equal(t, "three", readString(t, c))
	assert.False(t, c.Buffered())
}

// An interruption in the middle of a frame keeps the bytes already read.
func TestInterruptedReadKeepsAPartialFrame(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	fr := newFrameReader(r, 0)

	_, err = w.Write([]byte(`{"jsonrpc":"2.0",`))
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { // owner: this test; returns once interrupted
		_, err := fr.next()
		errc <- err
	}()
	// Parked in the poller inside next: the first half has been read, no
	// '\n' found, and the second read waits.
	waitBlockedReading(t)
	require.NoError(t, r.SetReadDeadline(pastDeadline)) // what Conn.InterruptRead does
	select {
	case err := <-errc:
		require.ErrorIs(t, err, transport.ErrReadInterrupted)
	case <-time.After(5 * time.Second):
		t.Fatal("the deadline did not wake the read")
	}
	assert.True(t, fr.buffered(), "the first half is kept")

	_, err = w.Write([]byte(`"id":1}` + "\n"))
	require.NoError(t, err)
	frame, err := fr.next()
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1}`, string(frame))
}

// waitBlockedReading returns once a goroutine is parked in the runtime
// poller inside frameReader.next, which it only is after reading all that
// was available; it fails the test if none is within 20 s.
func waitBlockedReading(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, " [IO wait") && strings.Contains(g, "stdio.(*frameReader).next") {
				return
			}
		}
		require.True(t, time.Now().Before(deadline), "no read parked in the poller")
		runtime.Gosched()
	}
}
