package h2stream

import (
	"net/http"

	"golang.org/x/net/http2"
)

// maxStreamID is the largest stream id (31 bits); a client's are odd.
const maxStreamID = 1<<31 - 1

// roundTrip opens a stream on cc (whose slot the caller took), sends req
// and its body, and waits for the response headers, or the stream's
// failure, or the request context's end.
func (cc *clientConn) roundTrip(o *outgoing, fields []Field, rb requestBody) (*http.Response, error) {
	s, err := cc.send(o, fields, rb)
	if err != nil {
		return nil, err
	}
	cc.awaitHeadersBy(s)
	return s.awaitHeaders()
}

// send opens a stream on cc and sends req and its body, which it
// releases: a request waiting for its answer holds no copy of its body.
func (cc *clientConn) send(o *outgoing, fields []Field, rb requestBody) (*stream, error) {
	defer rb.release()
	body := rb.b
	if err := checkHeaders(o, fields); err != nil {
		cc.t.release(cc)
		return nil, err
	}
	s := newStream(cc, o)

	cc.wmu.Lock()
	cc.mu.Lock()
	var err error
	switch {
	case cc.err != nil:
		err = &ConnError{Err: cc.err}
	case cc.goAway != nil:
		err = cc.goAway
	case cc.nextID > maxStreamID:
		err = &GoAwayError{LastStreamID: maxStreamID, Debug: errNoStreamIDs.Error()}
	}
	if err != nil {
		cc.mu.Unlock()
		cc.wmu.Unlock()
		cc.t.release(cc)
		return nil, err
	}
	s.id = cc.nextID
	cc.nextID += 2
	cc.streams[s.id] = s
	s.sendWindow = cc.initialWindow
	// What the windows allow goes with the headers, in the same write;
	// the rest (a large body, or windows the server has not given back
	// yet) follows as the server opens them.
	now := min(int64(len(body)), cc.sendWindow, s.sendWindow)
	if cc.windowQueue.head != nil {
		now = 0 // others wait for the connection's window: after them
	}
	cc.sendWindow -= now
	s.sendWindow -= now
	maxFrame := int(cc.maxFrame)
	lastID := cc.nextID > maxStreamID
	cc.mu.Unlock()
	err = cc.writeRequestLocked(s.id, o, fields, body[:now], len(body), maxFrame)
	cc.wmu.Unlock()
	if lastID {
		cc.t.unusable(cc)
	}
	if err != nil {
		// The connection's failure fails s, but a close already under
		// way on another goroutine may not have reached s yet: s is
		// failed here too, so that its error is set when read.
		ce := &ConnError{Err: err}
		cc.close(ce)
		s.fail(ce, true, false)
		return nil, s.headersOrError()
	}
	if int(now) < len(body) {
		s.sendBody(body[now:])
	}
	return s, nil
}

// writeRequestLocked writes the HEADERS (and CONTINUATION) frames of o
// and fields,
// whose body is total bytes long, and body, the part of it the windows
// allow, as DATA (the stream ends with it when it is all), and flushes;
// the caller holds cc.wmu.
func (cc *clientConn) writeRequestLocked(id uint32, o *outgoing, fields []Field, body []byte, total, maxFrame int) error {
	last := len(body) == total
	block := cc.encodeHeadersLocked(o, fields, total)
	first := block[:min(len(block), maxFrame)]
	rest := block[len(first):]
	err := cc.fr.WriteHeaders(http2.HeadersFrameParam{
		StreamID:      id,
		BlockFragment: first,
		EndStream:     last && len(body) == 0,
		EndHeaders:    len(rest) == 0,
	})
	for err == nil && len(rest) > 0 {
		chunk := rest[:min(len(rest), maxFrame)]
		rest = rest[len(chunk):]
		err = cc.fr.WriteContinuation(id, len(rest) == 0, chunk)
	}
	for err == nil && len(body) > 0 {
		chunk := body[:min(len(body), maxFrame)]
		body = body[len(chunk):]
		err = cc.fr.WriteData(id, last && len(body) == 0, chunk)
	}
	if err == nil {
		err = cc.bw.Flush()
	}
	return err
}

// awaitHeaders waits for the response headers or the stream's failure.
func (s *stream) awaitHeaders() (*http.Response, error) {
	for {
		s.mu.Lock()
		resp, err := s.resp, s.err
		s.resp = nil
		s.mu.Unlock()
		switch {
		case resp != nil:
			return resp, nil
		case err != nil:
			if s.ctx.Err() != nil {
				err = s.ctx.Err()
			}
			s.fail(err, true, true)
			return nil, err
		}
		s.await()
	}
}

// headersOrError is the stream's failure when its request could not be
// written.
func (s *stream) headersOrError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
