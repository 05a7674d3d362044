//go:build !linux

package stdio

import "os"

// waitExited reaps the child with proc.Wait. Off Linux there is no portable
// wait-without-reaping, so the final group SIGKILL in Close runs after the
// reap; that is still safe in practice because a group id stays reserved
// while any member lives.
func waitExited(proc *os.Process) (reaped bool, state *os.ProcessState, err error) {
	state, err = proc.Wait()
	return true, state, err
}
