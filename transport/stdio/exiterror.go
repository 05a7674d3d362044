package stdio

import (
	"fmt"
	"io"
	"syscall"
)

// ProcessExitedError is what ReadFrame returns once the server process has
// exited and everything it wrote to stdout has been read, whether or not a
// process it left behind (a wrapper's background child) still holds stdout
// open. It wraps the end of the stream: io.EOF, or io.ErrUnexpectedEOF when
// the output ended inside a frame, so errors.Is(err, io.EOF) holds for a
// clean end. Only Linux (pidfd) watches the process; elsewhere ReadFrame
// reports the plain end of the stream.
type ProcessExitedError struct {
	Pid int
	// Code is the exit code, -1 when a signal ended the process or the
	// status could not be read.
	Code int
	// Signal is the signal that ended the process, 0 when it exited.
	Signal syscall.Signal
	// Err is the end of the stream.
	Err error
}

func (e *ProcessExitedError) Error() string {
	var s string
	switch {
	case e.Signal != 0:
		s = fmt.Sprintf("stdio: server process %d was killed by signal %d (%v)", e.Pid, int(e.Signal), e.Signal)
	case e.Code >= 0:
		s = fmt.Sprintf("stdio: server process %d exited with code %d", e.Pid, e.Code)
	default:
		s = fmt.Sprintf("stdio: server process %d exited", e.Pid)
	}
	if e.Err == io.ErrUnexpectedEOF {
		s += " in the middle of a frame"
	}
	return s
}

func (e *ProcessExitedError) Unwrap() error { return e.Err }
