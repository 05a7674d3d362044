package h2stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/http/httpguts"
)

// bodyBufs recycles request bodies: a call's body is read into one for
// the time it takes to send it, instead of a fresh copy per request.
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody is the largest body buffer kept for reuse: a rare large
// tool argument should not leave every pooled buffer that large.
const maxPooledBody = 64 << 10

// requestBody is a request's body read into memory, for the time it takes
// to send it: after its headers, as fast as flow control lets it. buf is
// pooled until release, once the body is sent: a call in flight waiting
// for its answer holds no copy of its body.
type requestBody struct {
	buf *[]byte
	b   []byte
}

// readRequestBody reads and closes req's body.
func readRequestBody(req *http.Request) (requestBody, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return requestBody{}, nil
	}
	return readBody(req.Body, req.ContentLength)
}

// resendBody reads req's body again for a request sent once more (the
// server refused the stream unprocessed): through GetBody, as net/http
// does. Without GetBody a request with a body cannot go again: cause
// is returned.
func resendBody(req *http.Request, hadBody bool, cause error) (requestBody, error) {
	if !hadBody {
		return requestBody{}, nil
	}
	if req.GetBody == nil {
		return requestBody{}, cause
	}
	rc, err := req.GetBody()
	if err != nil {
		return requestBody{}, err
	}
	return readBody(rc, req.ContentLength)
}

// readBody reads and closes rc, size bytes long when size > 0.
func readBody(rc io.ReadCloser, size int64) (requestBody, error) {
	defer rc.Close()
	buf := bodyBufs.Get().(*[]byte)
	b := (*buf)[:0]
	if size > 0 && int64(cap(b)) < size+1 {
		b = make([]byte, 0, size+1) // +1: EOF is seen without growing
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rc.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			*buf = b
			requestBody{buf: buf}.release()
			return requestBody{}, err
		}
	}
	*buf = b
	return requestBody{buf: buf, b: b}, nil
}

// release hands the buffer back; b must not be used after.
func (rb requestBody) release() {
	if rb.buf == nil || cap(*rb.buf) > maxPooledBody {
		return
	}
	*rb.buf = (*rb.buf)[:0]
	bodyBufs.Put(rb.buf)
}

// setBody gives r a copy of the body read from it before: the fallback
// transport may still read it after RoundTrip returned.
func setBody(r *http.Request, rb requestBody) {
	if rb.buf == nil {
		r.Body = http.NoBody
		return
	}
	body := bytes.Clone(rb.b)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}

// HeaderError refuses a request header that cannot go into HTTP/2.
type HeaderError struct {
	Name string
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("mcpengine/h2stream: invalid request header %q", e.Name)
}

// connectionHeaders are the HTTP/1 connection-specific headers HTTP/2
// forbids (RFC 9113, 8.2.2); Host becomes :authority.
var connectionHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "te": true,
	"content-length": true, // set from the body read
}

// Field is one request header field of a Post.
type Field struct {
	Name, Value string
}

// outgoing is what a stream sends: an http.Request's parts (RoundTrip),
// or a POST's without an http.Request (Post), whose header fields go
// beside it, never kept: so that a Post's fields can live on its
// caller's stack.
type outgoing struct {
	ctx    context.Context
	method string
	url    *url.URL
	host   string
	header http.Header   // RoundTrip's
	req    *http.Request // RoundTrip's, for Response.Request
}

// fromRequest is req's outgoing.
func fromRequest(req *http.Request) outgoing {
	return outgoing{ctx: req.Context(), method: req.Method, url: req.URL, host: req.Host, header: req.Header, req: req}
}

// checkHeaders refuses what the server would take as a malformed request.
func checkHeaders(o *outgoing, fields []Field) error {
	if o.method != "" && !httpguts.ValidHeaderFieldName(o.method) {
		return &HeaderError{Name: ":method"}
	}
	for k, vv := range o.header {
		if !httpguts.ValidHeaderFieldName(k) {
			return &HeaderError{Name: k}
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return &HeaderError{Name: k}
			}
		}
	}
	for _, f := range fields {
		if !httpguts.ValidHeaderFieldName(f.Name) || !httpguts.ValidHeaderFieldValue(f.Value) {
			return &HeaderError{Name: f.Name}
		}
	}
	return nil
}

// encodeHeadersLocked writes the header block of o and fields into
// cc.hbuf; the caller holds cc.wmu (the encoder's table is the
// connection's).
func (cc *clientConn) encodeHeadersLocked(o *outgoing, fields []Field, bodyLen int) []byte {
	cc.hbuf.Reset()
	field := func(name, value string) {
		_ = cc.henc.WriteField(hpackField(name, value))
	}
	method := o.method
	if method == "" {
		method = http.MethodGet
	}
	host := o.host
	if host == "" {
		host = o.url.Host
	}
	field(":method", method)
	field(":scheme", strings.ToLower(o.url.Scheme))
	field(":authority", host)
	field(":path", o.url.RequestURI())
	regular := func(k, v string) {
		name := lowerName(k)
		if !connectionHeaders[name] {
			field(name, v)
		} else if name == "te" && strings.EqualFold(v, "trailers") {
			field("te", "trailers")
		}
	}
	for k, vv := range o.header {
		for _, v := range vv {
			regular(k, v)
		}
	}
	for _, f := range fields {
		regular(f.Name, f.Value)
	}
	if bodyLen > 0 {
		field("content-length", strconv.Itoa(bodyLen))
	}
	return cc.hbuf.Bytes()
}

// lowerNames are the lower-case forms of the header names the engine
// sends on every request: HTTP/2 wants field names in lower case, and
// lowering them per request would allocate each time.
var lowerNames = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Accept", "Authorization", "Content-Type", "Last-Event-Id", "User-Agent",
		"Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Traceparent", "Tracestate",
	} {
		m[k] = strings.ToLower(k)
	}
	return m
}()

// lowerName returns the header name k in lower case.
func lowerName(k string) string {
	if l, ok := lowerNames[k]; ok {
		return l
	}
	return strings.ToLower(k)
}

// errNoStreamIDs: the connection used up its stream ids; the request goes
// on another connection (a GoAwayError, which is retried).
var errNoStreamIDs = errors.New("mcpengine/h2stream: the connection has no stream ids left")
