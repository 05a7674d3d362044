//go:build !linux

package stdio

import "os/exec"

// waitExited reaps the child with cmd.Wait. Off Linux there is no portable
// wait-without-reaping, so the final group SIGKILL in Close runs after the
// reap; that is still safe in practice because a group id stays reserved
// while any member lives.
func waitExited(cmd *exec.Cmd) (reaped bool, err error) { return true, cmd.Wait() }
