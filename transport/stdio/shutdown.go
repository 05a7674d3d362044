package stdio

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// stderrLinger bounds how long Close waits, after reaping the child, for its
// stderr to reach EOF. It only matters when a process outside the child's
// group (one that called setsid) still holds stderr open.
const stderrLinger = 250 * time.Millisecond

// Close runs the MCP stdio shutdown sequence and releases everything:
//
//  1. close the child's stdin (a well-behaved server exits on EOF);
//  2. wait up to ShutdownGrace for it to exit;
//  3. SIGTERM its process group, and wait up to ShutdownGrace again;
//  4. SIGKILL its process group and wait for the exit;
//  5. SIGKILL the group once more, so that grandchildren left behind by a
//     child that exited on its own die too (on Linux the exited child is not
//     reaped yet at that point, so its pid cannot name another group);
//  6. on Linux, SIGKILL the descendants that left the group (setsid): those
//     seen below the child when Close began, and, this process being a
//     child subreaper (Guard), the orphans the child left here, which are
//     reaped (guard_linux.go);
//  7. reap the child, close stdout, and let the stderr drain finish.
//
// ctx shortens each wait: once it is done Close kills outright. Close
// returns nil once the child is reaped, whatever its exit status (see
// ProcessState and ExitCode); an error only if reaping itself failed. It
// unblocks a pending ReadFrame and WriteFrames, which return
// transport.ErrClosed, as does every later call.
// Close is idempotent: later and concurrent calls return the first result.
//
// Close must be called even after ReadFrame returned io.EOF: that is what
// reaps the child.
func (c *Conn) Close(ctx context.Context) error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown(ctx) })
	return c.closeErr
}

func (c *Conn) shutdown(ctx context.Context) error {
	c.closing.Store(true)
	c.unwatchExit()     // from here on only Close signals the group and reaps
	_ = c.stdin.Close() // EOF for the child; unblocks a pending WriteFrames

	pid := c.proc.Pid
	// What the server started, seen while it may still run: processes
	// that left its group are found only this way, or by their marker
	// once orphaned (guard_linux.go).
	known := descendants(pid)
	exited := make(chan struct{})
	var reaped bool
	var waitErr error
	var state *os.ProcessState
	// Owner: this Close. Exits when the child has exited, which the SIGKILL
	// below guarantees; Close receives from exited before returning.
	go func() {
		reaped, state, waitErr = waitExited(c.proc)
		close(exited)
	}()

	if !c.await(ctx, exited) {
		_ = signalGroup(c.proc, syscall.SIGTERM)
		if !c.await(ctx, exited) {
			_ = signalGroup(c.proc, syscall.SIGKILL)
			<-exited
		}
	}
	_ = signalGroup(c.proc, syscall.SIGKILL) // stragglers; ESRCH when none
	server := pid
	if reaped {
		server = 0 // its pid may name another process by now
	}
	killEscaped(server, known, c.marker)
	if !reaped {
		state, waitErr = c.proc.Wait()
	}
	if state != nil {
		c.state.Store(state)
	}

	_ = c.stdout.Close() // unblocks a pending ReadFrame

	linger := stderrLinger
	if d, ok := ctx.Deadline(); ok {
		linger = min(linger, time.Until(d))
	}
	if c.errDrain != nil {
		c.errDrain.finish(linger, c.drained)
	} else if err := c.stderr.SetReadDeadline(time.Now().Add(linger)); err != nil {
		_ = c.stderr.Close() // not pollable: closing unblocks the drain instead
	}
	<-c.drained
	_ = c.stderr.Close()

	if waitErr != nil {
		return fmt.Errorf("stdio: reap %q (pid %d): %w", c.name, pid, waitErr)
	}
	return nil
}

// await waits for exited for at most the grace period, cut short by ctx, and
// reports whether the child exited.
func (c *Conn) await(ctx context.Context, exited <-chan struct{}) bool {
	d := c.grace
	if deadline, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(deadline))
	}
	if d <= 0 || ctx.Err() != nil {
		select {
		case <-exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-exited:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}
