//go:build linux

package proctest

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"unsafe"

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

func TestGroupAndZombies(t *testing.T) {
	// sh leads a new group, starts a sleep in it and exits at once; it
	// stays a zombie until reaped.
	sh := exec.Command("sh", "-c", "sleep 30 & echo $!")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := sh.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sh.Start())
	var sleepPid int
	_, err = fmt.Fscan(out, &sleepPid)
	require.NoError(t, err)
	pgid := sh.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })

	// waitid with WNOWAIT returns once sh has exited, without reaping it.
	var info [128]byte
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pgid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e != syscall.EINTR {
			require.Zero(t, e)
			break
		}
	}
	zombies, err := Zombies()
	require.NoError(t, err)
	assert.Contains(t, zombies, pgid)
	members, err := Group(pgid)
	require.NoError(t, err)
	assert.Equal(t, []int{sleepPid}, members, "the zombie leader is not a live member")

	require.NoError(t, syscall.Kill(-pgid, syscall.SIGKILL))
	require.NoError(t, sh.Wait()) // reaps sh (it exited 0 before the kill)
	zombies, err = Zombies()
	require.NoError(t, err)
	assert.NotContains(t, zombies, pgid)
}
