//go:build linux

package stdio

import (
	"errors"
	"os/exec"
	"syscall"
	"unsafe"
)

const pPID = 1 // P_PID for waitid

// waitExited blocks until the child has exited without reaping it
// (waitid with WNOWAIT), so that its pid keeps naming its process group
// until Close has signalled the stragglers. It reports reaped=false; should
// waitid be unavailable it falls back to cmd.Wait and reports reaped=true.
func waitExited(cmd *exec.Cmd) (reaped bool, err error) {
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch {
		case e == 0:
			return false, nil
		case errors.Is(e, syscall.EINTR):
			continue
		default:
			return true, cmd.Wait()
		}
	}
}
