//go:build linux

package proctest

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChildrenFindsOnlyLiveChildrenWithTheArguments(t *testing.T) {
	sleep := exec.Command("sleep", "30")
	require.NoError(t, sleep.Start())
	other := exec.Command("sleep", "31")
	require.NoError(t, other.Start())
	t.Cleanup(func() {
		_ = other.Process.Kill()
		_ = other.Wait()
	})

	pids, err := Children("sleep", "30")
	require.NoError(t, err)
	assert.Equal(t, []int{sleep.Process.Pid}, pids)

	require.NoError(t, sleep.Process.Kill())
	_ = sleep.Wait() // killed: reaps it
	pids, err = Children("sleep", "30")
	require.NoError(t, err)
	assert.Empty(t, pids, "a reaped child is gone")
}
