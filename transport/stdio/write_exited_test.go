//go:build linux

package stdio

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A write to a server that has exited says how it exited, as a read at
// end of file does ("broken pipe" alone says nothing), and the stderr it
// wrote just before is all there: the session names both when the writer
// sees the death first (actors/startup.go's *StartupError).
func TestWriteToAnExitedServerNamesItsExit(t *testing.T) {
	c := startChild(t, childConfig(t, "exit3"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, exited := exitStatus(c.Pid()); exited {
			break
		}
		require.True(t, time.Now().Before(deadline), "the child never exited")
		time.Sleep(time.Millisecond) // polling waitid: the exit watcher is what is under test
	}
	err := c.WriteFrames([]byte(`{"jsonrpc":"2.0","method":"x"}`))
	var pe *ProcessExitedError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 3, pe.Code)
	assert.True(t, errors.Is(err, syscall.EPIPE), "the write's own error stays the cause: %v", err)
	assert.Contains(t, string(c.Stderr()), "fatal: boom")
}
