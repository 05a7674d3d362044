//go:build !unix

package stdio

import (
	"os"
	"syscall"
)

// sysProcAttr: process groups are a Unix notion; elsewhere the child runs
// in the engine's group.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup can only kill the child itself off Unix; SIGTERM is skipped.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return nil
	}
	return p.Kill()
}
