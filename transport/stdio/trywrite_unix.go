//go:build unix

package stdio

import (
	"os"
	"sync"
	"syscall"

	"github.com/mcpengine/mcpengine/transport"
)

// pipeAtomic is PIPE_BUF on Linux (and the POSIX minimum is 512): a write
// of at most this many bytes to a pipe is all or nothing, so a try that
// finds the pipe too full writes no partial frame.
const pipeAtomic = 4096

var tryBufPool = sync.Pool{New: func() any { b := make([]byte, 0, pipeAtomic); return &b }}

// tryWriter makes one non-blocking write attempt on a pipe.
type tryWriter struct {
	raw  syscall.RawConn
	buf  []byte
	n    int
	werr error
	try  func(fd uintptr) bool // tw.attempt, bound once
}

func newTryWriter(f *os.File) *tryWriter {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	tw := &tryWriter{raw: raw}
	tw.try = tw.attempt
	return tw
}

// attempt writes once and never asks the poller to wait (returns true).
func (tw *tryWriter) attempt(fd uintptr) bool {
	for {
		tw.n, tw.werr = syscall.Write(int(fd), tw.buf)
		if tw.werr != syscall.EINTR {
			return true
		}
	}
}

// TryWriteFrames implements transport.TryWriter for a subprocess: frames
// that fit in one atomic pipe write are written if the pipe has room now;
// otherwise nothing is written and written is false.
func (c *Conn) TryWriteFrames(frames ...[]byte) (bool, error) {
	if c.closing.Load() {
		return false, transport.ErrClosed
	}
	if c.werr != nil {
		return false, c.werr
	}
	if c.tw == nil {
		if c.tw = newTryWriter(c.stdin); c.tw == nil {
			return false, nil
		}
	}
	total := 0
	for _, f := range frames {
		total += len(f) + 1
	}
	if total > pipeAtomic {
		return false, nil
	}
	if err := checkFrames(frames); err != nil {
		return false, err
	}
	bp := tryBufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	for _, f := range frames {
		buf = append(buf, f...)
		buf = append(buf, '\n')
	}
	c.tw.buf = buf
	rerr := c.tw.raw.Write(c.tw.try)
	n, werr := c.tw.n, c.tw.werr
	c.tw.buf = nil
	*bp = buf[:0]
	tryBufPool.Put(bp)
	switch {
	case rerr != nil: // the file was closed
		return false, transport.ErrClosed
	case werr == syscall.EAGAIN:
		return false, nil
	case werr != nil:
		if c.closing.Load() {
			return false, transport.ErrClosed
		}
		c.werr = werr
		if werr == syscall.EPIPE {
			return false, c.exitedInstead(werr)
		}
		return false, werr
	case n != total:
		// Cannot happen for a pipe write of at most PIPE_BUF bytes; if a
		// platform ever splits it, the stream holds a partial frame.
		c.werr = errPartialWrite
		return false, c.werr
	}
	return true, nil
}
