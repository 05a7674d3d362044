package h2stream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// errBodyClosed is what Read returns after Close.
var errBodyClosed = errors.New("mcpengine/h2stream: read on a closed response body")

// stream is one request's stream and, once its headers arrived, its
// response body. The read loop feeds it (headers, DATA, its end); one
// goroutine at a time consumes it: the RoundTrip waiting for the headers,
// then the body's reader.
type stream struct {
	cc *clientConn
	id uint32
	// ctx is the request's: its end fails the stream when the consumer
	// next waits (Read, the wait for the headers), without an AfterFunc
	// registration the stream would hold for its life.
	ctx  context.Context
	wake chan struct{} // capacity 1: something changed, for the consumer

	mu  sync.Mutex
	req *http.Request // until the response is built (Response.Request); nil for a Post
	// resp is the response until RoundTrip takes it: a long-lived stream
	// does not keep its headers (nor, through them, its request) once
	// the caller let go of them.
	resp       *http.Response
	gotHeaders bool   // the final response headers arrived
	buf        []byte // DATA received and not yet read; nil when drained
	err        error  // what Read returns once buf is drained: io.EOF after END_STREAM
	// remoteDone: the server sends nothing more (END_STREAM, RST_STREAM,
	// the connection's end), or we reset the stream.
	remoteDone bool
	finished   bool   // removed from the connection, its slot given back
	recvWindow int64  // what the server may still send on this stream
	unacked    uint32 // bytes read (or padding) not yet given back

	// Guarded by cc.mu.
	sendWindow         int64         // what we may still send on this stream
	list               *streamList   // the list s is on (stream_list.go), nil for none
	listPrev, listNext *stream       // s's neighbours there
	headerDeadline     time.Duration // monoNow's reading when the headers are late
}

func newStream(cc *clientConn, o *outgoing) *stream {
	return &stream{cc: cc, ctx: o.ctx, req: o.req, wake: make(chan struct{}, 1), recvWindow: int64(cc.t.opts.StreamWindow)}
}

// await waits for the read loop's next signal or the request context's
// end, which fails the stream (and resets it).
func (s *stream) await() {
	select {
	case <-s.wake:
	case <-s.ctx.Done():
		s.fail(s.ctx.Err(), true, true)
	}
}

// signal wakes the consumer, if it waits.
func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// onHeaders records the response headers (the read loop); a second
// HEADERS (trailers) is ignored but for its END_STREAM.
func (s *stream) onHeaders(resp *http.Response, endStream bool) {
	s.mu.Lock()
	if resp != nil && !s.gotHeaders && s.err == nil {
		s.resp, s.gotHeaders, s.req = resp, true, nil
	}
	got := s.gotHeaders
	s.mu.Unlock()
	if got {
		s.cc.headersCame(s)
	}
	s.signal()
	if endStream {
		s.end(io.EOF)
	}
}

// onData buffers a DATA frame's payload (the read loop); flowLen is the
// frame's length for flow control (payload and padding). It reports false
// when the server sent more than the stream's window allows.
func (s *stream) onData(data []byte, flowLen uint32, endStream bool) bool {
	s.mu.Lock()
	s.recvWindow -= int64(flowLen)
	if s.recvWindow < 0 {
		s.mu.Unlock()
		return false
	}
	if !s.gotHeaders {
		s.mu.Unlock()
		return false // DATA before the response headers
	}
	if s.err == nil {
		s.buf = append(s.buf, data...)
	}
	s.unacked += flowLen - uint32(len(data)) // padding is never read: give it back with the next read
	s.mu.Unlock()
	s.signal()
	if endStream {
		s.end(io.EOF)
	}
	return true
}

// end records that the server finished or reset the stream: Read returns
// err once the buffer is drained.
func (s *stream) end(err error) {
	s.mu.Lock()
	s.remoteDone = true
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.signal()
	s.finish()
}

// fail ends the stream on our side (the consumer closed it, its context
// ended, the connection failed): what was buffered is dropped when drop,
// and the server is told with RST_STREAM(CANCEL) when reset and it still
// sends.
func (s *stream) fail(err error, drop, reset bool) {
	s.mu.Lock()
	if s.err == nil || s.err == io.EOF && drop {
		s.err = err
	}
	if drop {
		s.buf = nil
	}
	reset = reset && !s.remoteDone && s.id != 0
	s.remoteDone = true
	s.mu.Unlock()
	s.signal()
	if reset {
		s.cc.writeRST(s.id, http2.ErrCodeCancel)
	}
	s.finish()
}

// failUnlessAnswered fails the stream with err unless its response
// headers came (the header timeout lost a race with them).
func (s *stream) failUnlessAnswered(err error) {
	s.mu.Lock()
	got := s.gotHeaders
	s.mu.Unlock()
	if !got {
		s.fail(err, true, true)
	}
}

// finish removes the stream from its connection and gives its slot back,
// once.
func (s *stream) finish() {
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		return
	}
	s.finished = true
	s.mu.Unlock()
	s.cc.mu.Lock()
	if s.cc.streams[s.id] == s {
		delete(s.cc.streams, s.id)
	}
	s.cc.leaveWindowQueueLocked(s)
	unlist(s)
	s.cc.mu.Unlock()
	s.cc.t.release(s.cc)
}

// Read implements io.Reader for the response body. Reading gives the
// stream's window back to the server in batches of half the window.
func (s *stream) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		if len(s.buf) > 0 {
			n := copy(p, s.buf)
			s.buf = s.buf[n:]
			if len(s.buf) == 0 {
				s.buf = nil // an idle stream holds no buffer
			}
			var give uint32
			if !s.remoteDone {
				s.unacked += uint32(n)
				if s.unacked >= s.cc.t.opts.StreamWindow/2 {
					give = s.unacked
					s.unacked = 0
					s.recvWindow += int64(give)
				}
			}
			s.mu.Unlock()
			if give > 0 {
				s.cc.writeWindowUpdate(s.id, give)
			}
			return n, nil
		}
		if err := s.err; err != nil {
			s.mu.Unlock()
			return 0, err
		}
		s.mu.Unlock()
		s.await()
	}
}

// Close implements io.Closer for the response body: a stream the server
// still sends is reset (RST_STREAM CANCEL).
func (s *stream) Close() error {
	s.fail(errBodyClosed, true, true)
	return nil
}
