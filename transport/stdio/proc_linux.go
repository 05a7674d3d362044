//go:build linux

package stdio

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

const pPID = 1 // P_PID for waitid

// waitExited blocks until the child has exited without reaping it
// (waitid with WNOWAIT), so that its pid keeps naming its process group
// until Close has signalled the stragglers. It reports reaped=false; should
// waitid be unavailable it falls back to proc.Wait and reports reaped=true.
func waitExited(proc *os.Process) (reaped bool, state *os.ProcessState, err error) {
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(proc.Pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch {
		case e == 0:
			return false, nil, nil
		case errors.Is(e, syscall.EINTR):
			continue
		default:
			state, err := proc.Wait()
			return true, state, err
		}
	}
}
