//go:build unix

package stdio

import (
	"io"
	"os"
	"syscall"
)

// pollReader reads from a file without holding a buffer while it waits.
type pollReader struct {
	raw syscall.RawConn
}

// newPollReader returns a pollReader for src, or nil when src is not an
// *os.File (then callers read into buffers of their own).
func newPollReader(src io.Reader) *pollReader {
	f, ok := src.(*os.File)
	if !ok {
		return nil
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return &pollReader{raw: raw}
}

// read waits until data (or EOF, or an error) is available and reads it
// into a pooled buffer, which the caller returns with putReadBuf. n == 0
// with a nil error never happens: EOF is reported as io.EOF.
func (p *pollReader) read() (buf []byte, n int, err error) {
	var rerr error
	werr := p.raw.Read(func(fd uintptr) bool {
		buf = getReadBuf()
		for {
			n, rerr = syscall.Read(int(fd), buf)
			if rerr != syscall.EINTR {
				break
			}
		}
		if rerr == syscall.EAGAIN {
			putReadBuf(buf)
			buf = nil
			return false // not ready: wait in the poller, holding nothing
		}
		return true
	})
	switch {
	case werr != nil:
		putReadBuf(buf)
		return nil, 0, werr
	case rerr != nil:
		putReadBuf(buf)
		return nil, 0, rerr
	case n <= 0:
		putReadBuf(buf)
		return nil, 0, io.EOF
	}
	return buf, n, nil
}
