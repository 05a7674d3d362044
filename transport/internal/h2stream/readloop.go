package h2stream

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/net/http2"
)

// maxConnRefund caps how much received connection window the read loop
// collects before giving it back in one WINDOW_UPDATE (at most half the
// window).
const maxConnRefund = 1 << 20

// readLoop reads every frame of the connection and hands each to its
// stream, until the connection fails or is closed; then every stream
// still open fails.
func (cc *clientConn) readLoop() {
	defer cc.t.loops.Done()
	defer close(cc.done)
	var err error
	for {
		f, ferr := cc.fr.ReadFrame()
		if cc.health.after > 0 {
			cc.lastRead.Store(time.Now().UnixNano())
		}
		if ferr != nil {
			var se http2.StreamError
			if errors.As(ferr, &se) {
				cc.streamError(se)
				continue
			}
			err = ferr
			break
		}
		if err = cc.handle(f); err != nil {
			break
		}
	}
	cc.close(&ConnError{Err: err})
}

// streamByID returns the open stream id, or nil (finished, or unknown).
func (cc *clientConn) streamByID(id uint32) *stream {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.streams[id]
}

// streamError resets a stream whose frames the server got wrong
// (malformed headers) and fails it.
func (cc *clientConn) streamError(se http2.StreamError) {
	s := cc.streamByID(se.StreamID)
	cc.writeRST(se.StreamID, se.Code)
	if s != nil {
		s.end(&StreamResetError{Code: se.Code})
	}
}

// handle processes one frame; an error fails the connection.
func (cc *clientConn) handle(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		s := cc.streamByID(f.StreamID)
		if s == nil {
			return nil // a stream we reset: its headers were decoded, the table stays in step
		}
		resp, err := s.response(f)
		if err != nil {
			cc.streamError(http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeProtocol, Cause: err})
			return nil
		}
		if resp != nil || f.StreamEnded() {
			s.onHeaders(resp, f.StreamEnded())
		}
	case *http2.DataFrame:
		n := f.Header().Length
		cc.unrefunded += n
		if cc.unrefunded >= min(maxConnRefund, max(cc.t.connWindow, 65535)/2) {
			cc.writeWindowUpdate(0, cc.unrefunded)
			cc.unrefunded = 0
		}
		if s := cc.streamByID(f.StreamID); s != nil && !s.onData(f.Data(), n, f.StreamEnded()) {
			cc.streamError(http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeFlowControl})
		}
	case *http2.SettingsFrame:
		if !f.IsAck() {
			return cc.applySettings(f)
		}
	case *http2.PingFrame:
		if !f.IsAck() {
			return cc.write(func() error { return cc.fr.WritePing(true, f.Data) })
		}
	case *http2.GoAwayFrame:
		cc.onGoAway(f)
	case *http2.RSTStreamFrame:
		if s := cc.streamByID(f.StreamID); s != nil {
			s.end(&StreamResetError{Code: f.ErrCode})
		}
	case *http2.WindowUpdateFrame:
		return cc.onWindowUpdate(f.StreamID, f.Increment)
	case *http2.PushPromiseFrame:
		return &ProtocolError{Code: http2.ErrCodeProtocol, Reason: "PUSH_PROMISE though push is disabled"}
	}
	return nil
}

// onGoAway stops new streams on cc and fails those the server will not
// process (ids above its last); the others go on to their end, and the
// connection closes after the last.
func (cc *clientConn) onGoAway(f *http2.GoAwayFrame) {
	ga := &GoAwayError{LastStreamID: f.LastStreamID, Code: f.ErrCode, Debug: string(f.DebugData())}
	cc.t.unusable(cc)
	cc.mu.Lock()
	cc.goAway = ga
	var above []*stream
	for id, s := range cc.streams {
		if id > f.LastStreamID {
			above = append(above, s)
		}
	}
	cc.mu.Unlock()
	for _, s := range above {
		s.end(ga)
	}
}

// response builds the http.Response of a HEADERS frame; nil for an
// informational (1xx) answer or trailers.
func (s *stream) response(f *http2.MetaHeadersFrame) (*http.Response, error) {
	s.mu.Lock()
	have, req := s.gotHeaders, s.req
	s.mu.Unlock()
	if have {
		return nil, nil // trailers
	}
	if f.Truncated {
		return nil, errors.New("response headers too large")
	}
	status := f.PseudoValue("status")
	code, err := strconv.Atoi(status)
	if err != nil || len(status) != 3 {
		return nil, errors.New("malformed :status")
	}
	if code >= 100 && code < 200 {
		return nil, nil
	}
	fields := f.RegularFields()
	h := make(http.Header, len(fields))
	for _, hf := range fields {
		k := http.CanonicalHeaderKey(hf.Name)
		h[k] = append(h[k], hf.Value)
	}
	resp := &http.Response{
		Status:        status + " " + http.StatusText(code),
		StatusCode:    code,
		Proto:         "HTTP/2.0",
		ProtoMajor:    2,
		Header:        h,
		Body:          s,
		ContentLength: -1,
		Request:       req,
	}
	if cl := h.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			resp.ContentLength = n
		}
	}
	return resp, nil
}
