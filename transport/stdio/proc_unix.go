//go:build unix

package stdio

import (
	"errors"
	"os"
	"syscall"
)

// sysProcAttr puts the child in a new process group whose id is its pid, so
// that signals reach the grandchildren it spawns (npx, uvx, shells).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to every process in the group led by p. A group
// that no longer exists is not an error.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if p.Pid <= 0 {
		return nil
	}
	if err := syscall.Kill(-p.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
