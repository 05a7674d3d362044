package h2stream

import (
	"golang.org/x/net/http2"
)

// maxWindow is the largest flow-control window HTTP/2 allows.
const maxWindow = 1<<31 - 1

// sendBody sends the rest of s's body as DATA frames as fast as the
// server's windows (the connection's and the stream's) open, ending the
// stream with the last. It stops early, sending nothing more, when the
// stream ended (the server answered or reset it, the connection failed)
// or the request's context ended, which resets the stream: awaitHeaders
// then reports how it ended. A failed write fails the connection.
func (s *stream) sendBody(rest []byte) {
	cc := s.cc
	for len(rest) > 0 {
		n, ok := s.takeSendWindow(len(rest))
		if !ok {
			return
		}
		chunk := rest[:n]
		rest = rest[n:]
		last := len(rest) == 0
		if cc.write(func() error { return cc.fr.WriteData(s.id, last, chunk) }) != nil {
			return
		}
	}
}

// takeSendWindow waits until the windows allow sending some of want
// bytes (at most a frame) and takes that much of both; false when the
// stream ended or its context did meanwhile.
//
// Streams take the connection's window in the order they began waiting
// for it (cc.windowQueue), and a WINDOW_UPDATE wakes only the first: with
// thousands of requests waiting, waking them all for every update would
// cost each update thousands of wake-ups. The first passes the turn on
// when it leaves with window to spare. A stream held back by its own
// window leaves the queue meanwhile, not to hold the others back.
func (s *stream) takeSendWindow(want int) (int, bool) {
	cc := s.cc
	q := &cc.windowQueue
	for {
		cc.mu.Lock()
		if cc.streams[s.id] != s { // finished, or the connection failed
			cc.mu.Unlock()
			return 0, false
		}
		switch {
		case s.sendWindow <= 0:
			cc.leaveWindowQueueLocked(s) // its WINDOW_UPDATE signals it
		case q.head != nil && q.head != s:
			if s.list == nil {
				q.push(s)
			}
		case cc.sendWindow > 0:
			n := min(int64(want), cc.sendWindow, s.sendWindow, int64(cc.maxFrame))
			cc.sendWindow -= n
			s.sendWindow -= n
			cc.leaveWindowQueueLocked(s)
			cc.mu.Unlock()
			return int(n), true
		case s.list == nil:
			q.push(s)
		}
		cc.mu.Unlock()
		select {
		case <-s.wake:
		case <-s.ctx.Done():
			cc.mu.Lock()
			cc.leaveWindowQueueLocked(s)
			cc.mu.Unlock()
			s.fail(s.ctx.Err(), true, true)
			return 0, false
		}
	}
}

// leaveWindowQueueLocked takes s out of the window queue, if it is in
// it, and passes the turn on. The caller holds cc.mu.
func (cc *clientConn) leaveWindowQueueLocked(s *stream) {
	if s.list == &cc.windowQueue {
		unlist(s)
		cc.passWindowLocked()
	}
}

// passWindowLocked wakes the first stream waiting for the connection's
// window, if there is window to take. The caller holds cc.mu.
func (cc *clientConn) passWindowLocked() {
	if h := cc.windowQueue.head; h != nil && cc.sendWindow > 0 {
		h.signal()
	}
}

// onWindowUpdate adds a WINDOW_UPDATE's increment to the connection's
// window (id 0) or a stream's; a window pushed past its maximum is a
// flow-control error of the connection, or of the stream.
func (cc *clientConn) onWindowUpdate(id, increment uint32) error {
	cc.mu.Lock()
	var overflow *stream
	switch s := cc.streams[id]; {
	case id == 0:
		cc.sendWindow += int64(increment)
		if cc.sendWindow > maxWindow {
			cc.mu.Unlock()
			return &ProtocolError{Code: http2.ErrCodeFlowControl, Reason: "the connection's send window grew past 2^31-1"}
		}
		cc.passWindowLocked()
	case s != nil:
		s.sendWindow += int64(increment)
		if s.sendWindow > maxWindow {
			overflow = s
		}
		s.signal()
	}
	cc.mu.Unlock()
	if overflow != nil {
		cc.streamError(http2.StreamError{StreamID: id, Code: http2.ErrCodeFlowControl})
	}
	return nil
}

// setInitialWindowLocked applies a new SETTINGS_INITIAL_WINDOW_SIZE: it
// moves every open stream's send window by the difference (RFC 9113,
// 6.9.2). The caller holds cc.mu.
func (cc *clientConn) setInitialWindowLocked(size uint32) {
	delta := int64(size) - cc.initialWindow
	cc.initialWindow = int64(size)
	for _, s := range cc.streams {
		s.sendWindow += delta
		if delta > 0 {
			s.signal() // one held back by its own window may go on
		}
	}
}
