//go:build linux

package stdio

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A child that writes to stderr and exits at once: its stderr may be
// ready before the connection has finished registering the pipe with the
// exit watcher (whose first burst then found no watch to rearm: a nil
// dereference the root package's TestConnectFailsForAServerThatDies...
// hit about once in a hundred runs under -race; this loop did not catch
// it in 200 starts, so it guards the report rather than the race). Each
// start must end its read with the exit status and have drained the line.
func TestAChildThatWritesStderrAndExitsAtOnceIsReported(t *testing.T) {
	for i := 0; i < 40; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := NewDialer(Config{Command: "sh", Args: []string{"-c", "echo 'Error: boom' >&2; exit 7"}}).Dial(ctx)
		cancel()
		require.NoError(t, err)
		c := conn.(*Conn)
		_, rerr := c.ReadFrame()
		assert.Equal(t, "Error: boom\n", string(c.Stderr()), "start %d", i)
		var pe *ProcessExitedError
		if assert.True(t, errors.As(rerr, &pe), "start %d: read error %v", i, rerr) {
			assert.Equal(t, 7, pe.Code)
		}
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, c.Close(cctx))
		ccancel()
	}
}
