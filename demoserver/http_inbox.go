package demoserver

import (
	"io"
	"sync"

	"github.com/mcpengine/mcpengine/transport"
)

// inbox turns frames POSTed by HTTP handlers into the blocking ReadFrame
// the session's reader expects. push never blocks: the handlers answer the
// client on their own, the session consumes at its pace.
type inbox struct {
	mu     sync.Mutex
	frames [][]byte
	eof    bool // no more pushes; ReadFrame returns io.EOF once drained
	closed bool // ReadFrame returns ErrClosed at once

	wake chan struct{} // capacity 1: "something changed"
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

// push queues one frame; the inbox owns it now. It reports false once the
// inbox is finished or closed.
func (in *inbox) push(frame []byte) bool {
	in.mu.Lock()
	if in.eof || in.closed {
		in.mu.Unlock()
		return false
	}
	in.frames = append(in.frames, frame)
	in.mu.Unlock()
	in.signal()
	return true
}

// finish makes ReadFrame return io.EOF after the queued frames: the session
// then ends as if its client closed the connection.
func (in *inbox) finish() {
	in.mu.Lock()
	in.eof = true
	in.mu.Unlock()
	in.signal()
}

// close makes ReadFrame return transport.ErrClosed at once.
func (in *inbox) close() {
	in.mu.Lock()
	in.closed = true
	in.frames = nil
	in.mu.Unlock()
	in.signal()
}

func (in *inbox) signal() {
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// read blocks until a frame is queued or the inbox ends.
func (in *inbox) read() ([]byte, error) {
	for {
		in.mu.Lock()
		switch {
		case in.closed:
			in.mu.Unlock()
			return nil, transport.ErrClosed
		case len(in.frames) > 0:
			f := in.frames[0]
			in.frames[0] = nil
			in.frames = in.frames[1:]
			in.mu.Unlock()
			return f, nil
		case in.eof:
			in.mu.Unlock()
			return nil, io.EOF
		}
		in.mu.Unlock()
		<-in.wake
	}
}
