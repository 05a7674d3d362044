//go:build linux

package stdio

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A child that never reads its stdin: tries fill the pipe and then report
// "not written" at once, never blocking; frames too large to write
// atomically are never tried; nothing partial reaches the pipe.
func TestTryWriteNeverBlocksOnAPipeNobodyReads(t *testing.T) {
	c := startChild(t, childConfig(t, "ignore-stdin"))
	frame := bytes.Repeat([]byte("x"), 999) // 1000 bytes with the newline
	start := time.Now()
	written := 0
	for i := 0; i < 1000; i++ {
		ok, err := c.TryWriteFrames(frame)
		require.NoError(t, err)
		if !ok {
			break
		}
		written++
	}
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Greater(t, written, 8, "a pipe holds at least 8 KiB")
	assert.Less(t, written, 1000, "the pipe filled up and the try said so")

	ok, err := c.TryWriteFrames(bytes.Repeat([]byte("y"), 5000))
	require.NoError(t, err)
	assert.False(t, ok, "over PIPE_BUF: not tried")
	ok, err = c.TryWriteFrames(frame, frame, frame, frame, frame)
	require.NoError(t, err)
	assert.False(t, ok, "a batch over PIPE_BUF: not tried")

	require.NoError(t, c.Close(context.Background()))
	ok, err = c.TryWriteFrames(frame)
	assert.False(t, ok)
	assert.Error(t, err)
}

func TestTryWriteDeliversWhatItWrote(t *testing.T) {
	c := startChild(t, childConfig(t, "echo"))
	ok, err := c.TryWriteFrames([]byte("one"), []byte("two"))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "one", readString(t, c))
	assert.Equal(t, "two", readString(t, c))
	_, err = c.TryWriteFrames([]byte("bad\nframe"))
	assert.ErrorIs(t, err, ErrNewlineInFrame)
}
