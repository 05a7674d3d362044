package stdio

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/transport"
)

// framed carries newline-delimited frames over a reader and a writer. It is
// the part shared by Conn (a subprocess) and NewStreamConn (any streams).
type framed struct {
	rd      frameReader // reader goroutine only
	w       io.Writer
	werr    error       // sticky write failure; writer goroutine only
	closing atomic.Bool // set first thing by Close
}

// ReadFrame returns the next frame (see transport.Conn); the caller owns it.
// It returns io.EOF at a clean end of stream and io.ErrUnexpectedEOF when
// the stream ends inside a frame. A frame longer than the cap fails the
// connection: this and every later call return *transport.FrameTooLargeError.
// Once Close has begun it returns transport.ErrClosed.
func (f *framed) ReadFrame() ([]byte, error) {
	if f.closing.Load() {
		return nil, transport.ErrClosed
	}
	b, err := f.rd.next()
	if err != nil && f.closing.Load() {
		return nil, transport.ErrClosed
	}
	return b, err
}

// WriteFrames writes the frames, each followed by '\n', through one pooled
// buffer and flushes once (see transport.Conn). A frame that is empty or
// holds a raw '\n' is rejected with ErrEmptyFrame or ErrNewlineInFrame before
// anything is written. Only one goroutine may call it at a time; Close from
// another goroutine unblocks it with transport.ErrClosed. After a failed
// write the stream may hold a partial frame, so every later call returns the
// same error.
func (f *framed) WriteFrames(frames ...[]byte) error {
	if f.closing.Load() {
		return transport.ErrClosed
	}
	if f.werr != nil {
		return f.werr
	}
	if err := checkFrames(frames); err != nil {
		return err
	}
	if err := writeFrames(f.w, frames); err != nil {
		if f.closing.Load() {
			return transport.ErrClosed
		}
		f.werr = err
		return err
	}
	return nil
}

// NewStreamConn returns a Conn that speaks newline-delimited frames over r
// and w, with no process behind it: a server speaking stdio on os.Stdin and
// os.Stdout, or tests. maxFrameBytes caps received frames (zero means
// transport.DefaultMaxFrameBytes). Close closes w, then r, and returns their
// errors joined; it unblocks a pending ReadFrame only if closing r unblocks
// r.Read (true for pipes from os.Pipe, not for every os.Stdin). The Conn
// starts no goroutine.
func NewStreamConn(r io.ReadCloser, w io.WriteCloser, maxFrameBytes int) transport.Conn {
	s := &streamConn{r: r, wc: w}
	s.rd = newFrameReader(r, maxFrameBytes)
	s.w = w
	return s
}

type streamConn struct {
	framed
	r    io.ReadCloser
	wc   io.WriteCloser
	once sync.Once
	err  error
}

func (s *streamConn) Close(context.Context) error {
	s.once.Do(func() {
		s.closing.Store(true)
		s.err = errors.Join(s.wc.Close(), s.r.Close())
	})
	return s.err
}
