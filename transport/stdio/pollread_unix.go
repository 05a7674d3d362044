//go:build unix

package stdio

import (
	"io"
	"os"
	"syscall"
)

// pollReader reads from a file without holding a buffer while it waits.
// Used by one goroutine; its fields carry the result out of the callback
// so that a read allocates nothing.
type pollReader struct {
	raw  syscall.RawConn
	try  func(fd uintptr) bool // p.tryRead, bound once
	buf  []byte
	n    int
	rerr error
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
	p := &pollReader{raw: raw}
	p.try = p.tryRead
	return p
}

// tryRead is called by the poller when fd may be readable.
func (p *pollReader) tryRead(fd uintptr) bool {
	p.buf = getReadBuf()
	for {
		p.n, p.rerr = syscall.Read(int(fd), p.buf)
		if p.rerr != syscall.EINTR {
			break
		}
	}
	if p.rerr == syscall.EAGAIN {
		putReadBuf(p.buf)
		p.buf = nil
		return false // not ready: wait in the poller, holding nothing
	}
	return true
}

// read waits until data (or EOF, or an error) is available and reads it
// into a pooled buffer, which the caller returns with putReadBuf. n == 0
// with a nil error never happens: EOF is reported as io.EOF.
func (p *pollReader) read() (buf []byte, n int, err error) {
	werr := p.raw.Read(p.try)
	buf, n, rerr := p.buf, p.n, p.rerr
	p.buf, p.rerr = nil, nil
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

// readNow reads what the file holds without waiting, ignoring read
// deadlines: io.EOF when it holds nothing. For a pipe whose writer has
// exited even though other processes still hold it open.
func (p *pollReader) readNow(buf []byte) (n int, err error) {
	n, err, cerr := readOnce(p.raw, buf)
	switch {
	case cerr != nil:
		return 0, cerr
	case err == syscall.EAGAIN, err == nil && n <= 0:
		return 0, io.EOF
	case err != nil:
		return 0, err
	}
	return n, nil
}

// readOnce is one read(2) of the descriptor behind raw, which does not
// wait for data (the descriptor is non-blocking), retried on EINTR: n and
// err are the read's, cerr what Control said (the file is closed).
func readOnce(raw syscall.RawConn, buf []byte) (n int, err, cerr error) {
	cerr = raw.Control(func(fd uintptr) {
		for {
			n, err = syscall.Read(int(fd), buf)
			if err != syscall.EINTR {
				return
			}
		}
	})
	return n, err, cerr
}
