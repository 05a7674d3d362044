package stdio

import (
	"syscall"
	"time"
)

// ExitReport is for explaining a server that died: it waits up to d for
// the child's stderr to be drained to its end (Close, or the exit of its
// whole process group, brings that), then returns what the child wrote to
// stderr and, when known, how it ended (*ProcessExitedError, nil while
// the child has not been seen to exit). A failure is often seen first as
// a write to a closed pipe or the end of stdout, a moment before the
// child's last stderr lines are read and its status can be had.
func (c *Conn) ExitReport(d time.Duration) (stderr []byte, exit error) {
	t := time.NewTimer(d)
	select {
	case <-c.drained:
	case <-t.C:
	}
	t.Stop()
	return c.ring.bytes(), c.exitOrNil()
}

// exitOrNil says how the child ended, from what is known without waiting:
// the exit watcher's record, the status Close reaped, or (Linux) a look
// at the unreaped child.
func (c *Conn) exitOrNil() error {
	if c.dead.Load() {
		e := *c.exitErr
		return &e
	}
	if ps := c.state.Load(); ps != nil {
		e := &ProcessExitedError{Pid: c.proc.Pid, Code: ps.ExitCode()}
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Code, e.Signal = -1, ws.Signal()
		}
		return e
	}
	if e := c.exitedAfterEOF(); e != nil {
		return e
	}
	return nil
}
