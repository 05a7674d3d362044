package h2stream

import (
	"errors"
	"fmt"

	"golang.org/x/net/http2"
)

// ErrClosed is the error of a request sent after Close, and of the
// streams of a connection the transport closed.
var ErrClosed = errors.New("mcpengine/h2stream: the transport is closed")

// ErrNotH2 says that TLS negotiated another protocol than h2 (ALPN):
// the origin is served by the fallback RoundTripper from then on.
var ErrNotH2 = errors.New("mcpengine/h2stream: the server did not choose h2")

// StreamResetError is the failure of a stream the server reset
// (RST_STREAM).
type StreamResetError struct {
	Code http2.ErrCode
}

func (e *StreamResetError) Error() string {
	return fmt.Sprintf("mcpengine/h2stream: the server reset the stream (%v)", e.Code)
}

// GoAwayError is the failure of a stream the server will not process: it
// sent GOAWAY with a last stream id below the stream's.
type GoAwayError struct {
	LastStreamID uint32
	Code         http2.ErrCode
	Debug        string
}

func (e *GoAwayError) Error() string {
	s := fmt.Sprintf("mcpengine/h2stream: the server is going away (%v, last stream %d)", e.Code, e.LastStreamID)
	if e.Debug != "" {
		s += ": " + e.Debug
	}
	return s
}

// ConnError is the failure of every stream of a connection that broke:
// the server closed it, a read or write failed, or the server broke the
// protocol. Err is the cause.
type ConnError struct {
	Err error
}

func (e *ConnError) Error() string {
	return "mcpengine/h2stream: the connection failed: " + e.Err.Error()
}

func (e *ConnError) Unwrap() error { return e.Err }

// ProtocolError is a connection-level protocol violation by the server.
type ProtocolError struct {
	Code   http2.ErrCode
	Reason string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("mcpengine/h2stream: protocol error (%v): %s", e.Code, e.Reason)
}

// retryable reports whether a stream that failed with err before its
// response headers was not processed by the server, so that the request
// can go again on another connection.
func retryable(err error) bool {
	var ga *GoAwayError
	if errors.As(err, &ga) {
		return true
	}
	var rst *StreamResetError
	return errors.As(err, &rst) && rst.Code == http2.ErrCodeRefusedStream
}
