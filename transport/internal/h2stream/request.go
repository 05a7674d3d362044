package h2stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// readRequestBody reads and closes req's body (at most maxRequestBody):
// this client sends a body in one go, after the headers.
func readRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	b, err := io.ReadAll(io.LimitReader(req.Body, maxRequestBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRequestBody {
		return nil, ErrBodyTooLarge
	}
	return b, nil
}

// setBody gives r the body read from it before.
func setBody(r *http.Request, body []byte) {
	if body == nil {
		r.Body = http.NoBody
		return
	}
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

// checkHeaders refuses what the server would take as a malformed request.
func checkHeaders(req *http.Request) error {
	if req.Method != "" && !httpguts.ValidHeaderFieldName(req.Method) {
		return &HeaderError{Name: ":method"}
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return &HeaderError{Name: k}
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return &HeaderError{Name: k}
			}
		}
	}
	return nil
}

// encodeHeaders writes req's header block into cc.hbuf; the caller holds
// cc.wmu (the encoder's table is the connection's).
func (cc *clientConn) encodeHeadersLocked(req *http.Request, bodyLen int) []byte {
	cc.hbuf.Reset()
	field := func(name, value string) {
		_ = cc.henc.WriteField(hpackField(name, value))
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	path := req.URL.RequestURI()
	field(":method", method)
	field(":scheme", strings.ToLower(req.URL.Scheme))
	field(":authority", host)
	field(":path", path)
	for k, vv := range req.Header {
		name := strings.ToLower(k)
		if connectionHeaders[name] {
			if name == "te" {
				for _, v := range vv {
					if strings.EqualFold(v, "trailers") {
						field("te", "trailers")
					}
				}
			}
			continue
		}
		for _, v := range vv {
			field(name, v)
		}
	}
	if bodyLen > 0 {
		field("content-length", strconv.Itoa(bodyLen))
	}
	return cc.hbuf.Bytes()
}

// errNoStreamIDs: the connection used up its stream ids; the request goes
// on another connection (a GoAwayError, which is retried).
var errNoStreamIDs = errors.New("mcpengine/h2stream: the connection has no stream ids left")
