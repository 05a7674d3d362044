package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/transport"
)

// Errors returned by WriteFrames for frames that newline framing cannot carry
// as one message. Nothing of the call is written when a frame is rejected.
var (
	ErrNewlineInFrame = errors.New("stdio: frame contains a raw newline")
	ErrEmptyFrame     = errors.New("stdio: empty frame")

	errPartialWrite = errors.New("stdio: a pipe write was split")
)

const (
	// readBufInitial is the read buffer of an idle connection.
	readBufInitial = 4 << 10
	// bigFrame is the size from which a received frame is handed to the
	// caller in place (the read buffer becomes the frame) instead of copied.
	bigFrame = 64 << 10
	// writeBufSize is the size of the pooled write buffers.
	writeBufSize = 64 << 10
)

// frameReader splits a stream into newline-delimited frames. Unlike
// bufio.Reader its buffer grows only while a long frame is in flight (never
// beyond the frame cap plus "\r\n") and shrinks back once it is consumed, so
// an idle connection holds readBufInitial bytes. Used by one goroutine.
type frameReader struct {
	src        io.Reader
	poll       *pollReader // non-nil for files: wait for data holding no buffer
	max        int
	buf        []byte // buffered bytes are buf[start:end]
	pooled     bool   // buf came from readBufPool
	start, end int
	err        error // sticky; reported once no complete frame is buffered
	// interrupted is set by fill when a read deadline cut the read short
	// (transport.ReadInterrupter): not an error, and nothing was consumed.
	interrupted bool
	// dead, when set, says the process writing src has exited: fill then
	// reads what the pipe holds without waiting, and an empty pipe is the
	// end of the stream even if a process it left behind keeps it open.
	dead *atomic.Bool
}

func newFrameReader(src io.Reader, maxFrameBytes int) frameReader {
	if maxFrameBytes <= 0 {
		maxFrameBytes = transport.DefaultMaxFrameBytes
	}
	return frameReader{src: src, poll: newPollReader(src), max: maxFrameBytes}
}

// release drops an emptied buffer: back to the pool if it came from there,
// to the collector if a long frame made it grow.
func (r *frameReader) release() {
	r.start, r.end = 0, 0
	switch {
	case r.pooled:
		putReadBuf(r.buf)
		r.buf, r.pooled = nil, false
	case cap(r.buf) > readBufInitial || r.poll != nil:
		r.buf = nil
	}
}

// next returns the next non-empty frame, copied out of (or handed over with)
// the buffer so the caller owns it.
func (r *frameReader) next() ([]byte, error) {
	scanned := 0 // bytes after start already known to hold no '\n'
	for {
		if i := bytes.IndexByte(r.buf[r.start+scanned:r.end], '\n'); i >= 0 {
			nl := r.start + scanned + i
			line := r.buf[r.start:nl]
			r.start = nl + 1
			scanned = 0
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			if len(line) == 0 {
				continue
			}
			if len(line) > r.max {
				return nil, r.fail(&transport.FrameTooLargeError{Limit: r.max})
			}
			return r.take(line), nil
		}
		if r.err != nil {
			return nil, r.finalErr()
		}
		if r.end-r.start > r.max+1 { // even a trailing '\r' cannot save it
			return nil, r.fail(&transport.FrameTooLargeError{Limit: r.max})
		}
		scanned = r.end - r.start
		r.fill()
		if r.interrupted {
			r.interrupted = false
			return nil, transport.ErrReadInterrupted
		}
	}
}

// buffered reports whether bytes of a next frame are already read.
func (r *frameReader) buffered() bool { return r.start < r.end }

// readInterrupted reports whether err is a read deadline: the one that
// InterruptRead sets, which it lifts so that the next read waits again, or
// the one that wakes the reader when the process exited, which stays (the
// next fill reads without waiting). Only these two set read deadlines on a
// connection's stdout.
func (r *frameReader) readInterrupted(err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	if r.drying() {
		return true // not an interruption: the caller reads on, dry
	}
	if f, ok := r.src.(*os.File); ok {
		_ = f.SetReadDeadline(time.Time{})
	}
	r.interrupted = true
	return true
}

// take returns line (a slice of r.buf) as a frame the caller owns.
func (r *frameReader) take(line []byte) []byte {
	if len(line) >= bigFrame && 2*len(line) >= cap(r.buf) {
		// Hand the buffer over instead of copying; carry the rest over to a
		// fresh small buffer.
		out := line[:len(line):len(line)]
		rest := r.buf[r.start:r.end]
		r.buf = make([]byte, max(readBufInitial, len(rest)))
		r.start, r.end = 0, copy(r.buf, rest)
		return out
	}
	out := bytes.Clone(line)
	if r.start == r.end {
		r.release()
	}
	return out
}

// drying reports whether the writer of src has exited, so that reads must
// not wait (see dead).
func (r *frameReader) drying() bool { return r.dead != nil && r.poll != nil && r.dead.Load() }

// fill makes room and reads once.
func (r *frameReader) fill() {
	dry := r.drying()
	if r.poll != nil && r.start == r.end && !dry {
		// Nothing buffered: wait for the next bytes without a buffer.
		r.release()
		buf, n, err := r.poll.read()
		if err != nil {
			if !r.readInterrupted(err) {
				r.err = err
			}
			return
		}
		r.buf, r.pooled, r.start, r.end = buf, true, 0, n
		return
	}
	switch {
	case r.buf == nil:
		r.buf = make([]byte, readBufInitial)
	case r.start == r.end:
		r.start, r.end = 0, 0
	case r.end == len(r.buf) && r.start > 0:
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	case r.end == len(r.buf):
		// Double, but never beyond what the largest acceptable line needs
		// (next fails the frame as soon as it is known to be too long), and
		// jump straight to that size when the doubling after this one would
		// pass it, so that a too-long line costs about twice the cap in
		// allocations, never more.
		size := 2 * len(r.buf)
		if 2*size > r.max+2 {
			size = r.max + 2
		}
		nb := make([]byte, size)
		r.end = copy(nb, r.buf[r.start:r.end])
		r.start = 0
		if r.pooled {
			putReadBuf(r.buf)
			r.pooled = false
		}
		r.buf = nb
	}
	var n int
	var err error
	if dry {
		n, err = r.poll.readNow(r.buf[r.end:])
	} else {
		n, err = r.src.Read(r.buf[r.end:])
	}
	r.end += n
	if err != nil && !r.readInterrupted(err) {
		r.err = err
	}
}

// finalErr reports the sticky error once the buffer holds no complete frame.
func (r *frameReader) finalErr() error {
	if r.err == io.EOF {
		rest := bytes.TrimSuffix(r.buf[r.start:r.end], []byte{'\r'})
		if len(rest) > 0 {
			r.err = io.ErrUnexpectedEOF // the peer stopped mid-frame
		}
	}
	r.release()
	r.buf = nil
	return r.err
}

func (r *frameReader) fail(err error) error {
	r.err = err
	r.release()
	r.buf = nil
	return err
}

// writerPool holds write buffers between WriteFrames calls, so that idle
// connections hold none.
var writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBufSize) }}

// checkFrames validates a whole WriteFrames call before anything is written.
func checkFrames(frames [][]byte) error {
	for _, f := range frames {
		if len(f) == 0 {
			return ErrEmptyFrame
		}
		if bytes.IndexByte(f, '\n') >= 0 {
			return ErrNewlineInFrame
		}
	}
	return nil
}

// writeFrames writes each frame followed by '\n' and flushes once.
func writeFrames(w io.Writer, frames [][]byte) error {
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() {
		bw.Reset(nil)
		writerPool.Put(bw)
	}()
	for _, f := range frames {
		if _, err := bw.Write(f); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}
