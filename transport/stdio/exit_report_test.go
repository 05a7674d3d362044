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
// start must drain the line and report the exit status.
func TestAChildThatWritesStderrAndExitsAtOnceIsReported(t *testing.T) {
	for i := 0; i < 40; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := NewDialer(Config{Command: "sh", Args: []string{"-c", "echo 'Error: boom' >&2; exit 7"}}).Dial(ctx)
		cancel()
		require.NoError(t, err)
		c := conn.(*Conn)
		_, rerr := c.ReadFrame()
		require.Error(t, rerr)
		stderr, exit := c.ExitReport(10 * time.Second)
		assert.Equal(t, "Error: boom\n", string(stderr), "start %d", i)
		var pe *ProcessExitedError
		if assert.True(t, errors.As(exit, &pe), "start %d: exit %v", i, exit) {
			assert.Equal(t, 7, pe.Code)
		}
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, c.Close(cctx))
		ccancel()
	}
}

// ExitReport of a child that is still running returns by its bound,
// without an exit.
func TestExitReportOfARunningChildReturnsByItsBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := NewDialer(Config{Command: "sh", Args: []string{"-c", "echo hello >&2; exec sleep 60"}}).Dial(ctx)
	require.NoError(t, err)
	c := conn.(*Conn)
	defer func() { _ = c.Close(context.Background()) }()
	_, exit := c.ExitReport(50 * time.Millisecond)
	assert.NoError(t, exit)
}
