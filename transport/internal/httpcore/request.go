package httpcore

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
)

// Header names and values every HTTP transport sends. The values are
// shared, read-only slices: building a request copies no strings.
var (
	contentTypeJSON = []string{"application/json"}
	acceptBoth      = []string{"application/json, text/event-stream"}
	acceptSSE       = []string{"text/event-stream"}
	defaultAgent    = []string{"mcpengine"}
)

// Canonical header keys used by the transports.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderLastEventID     = "Last-Event-Id"
)

// NewRequest builds a request carrying the base headers (a server's
// configured headers, canonical keys) and, by method, the content
// negotiation MCP asks for: a POST sends JSON and accepts JSON or an event
// stream, a GET accepts an event stream. The base map is not modified; its
// value slices are shared, so neither the caller nor net/http may write to
// them (net/http does not).
func NewRequest(ctx context.Context, method, url string, base http.Header, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	// Filled in place: net/http made this map for the request already.
	h := req.Header
	for k, v := range base {
		h[k] = v
	}
	switch method {
	case http.MethodPost:
		h["Content-Type"] = contentTypeJSON
		h["Accept"] = acceptBoth
	case http.MethodGet:
		h["Accept"] = acceptSSE
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = defaultAgent
	}
	return req, nil
}

// Body is a POST's body kept inside the struct that sends it, so that
// its reader costs no allocation of its own. Its frame must not change
// while the request may be sent.
type Body struct {
	r bytes.Reader
}

// rewind is the request's GetBody: net/http sends a POST again on a new
// connection when the reused one was found closed before anything was
// written, and only if it can rewind the body. The new body reads the
// frame through b.r's ReadAt, which leaves b.r's position alone (a reader
// net/http gave up on may still be read), so that Body keeps no second
// slice of the frame.
func (b *Body) rewind() (io.ReadCloser, error) {
	return io.NopCloser(io.NewSectionReader(&b.r, 0, b.r.Size())), nil
}

// NewPost builds what NewRequest builds for a POST of frame, without
// parsing the URL again: u is parsed once per connection and shared by
// its requests (net/http never modifies a request's URL). Host is
// u.Host, as http.NewRequest sets it, so that a hook that reads it
// (Config.OnHTTPRequest) sees the same request. It reads frame through
// body, which the caller keeps alive and unchanged for as long as the
// request may be sent.
//
// The request's Body is body's bytes.Reader in an io.NopCloser, as
// http.NewRequest makes it: net/http writes a request's headers and body
// in one write only for a body it knows is in memory (for any other
// reader it flushes the headers first: a system call more per request).
//
// extra is how many headers the caller adds to the request. The map is
// made for what goes into it, no more: it never grows, and up to eight
// entries it is a single group of eight slots, where one hinted entry
// more would make a table of sixteen slots, twice the memory for every
// call in flight.
func NewPost(ctx context.Context, u *url.URL, base http.Header, extra int, body *Body, frame []byte) *http.Request {
	n := len(base) + extra + 2 // Content-Type, Accept
	if _, ok := base["User-Agent"]; !ok {
		n++
	}
	h := make(http.Header, n)
	for k, v := range base {
		h[k] = v
	}
	h["Content-Type"] = contentTypeJSON
	h["Accept"] = acceptBoth
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = defaultAgent
	}
	r := http.Request{
		Method:     http.MethodPost,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Body:       http.NoBody,
		Host:       u.Host,
	}
	if len(frame) > 0 {
		body.r.Reset(frame)
		r.Body, r.GetBody, r.ContentLength = io.NopCloser(&body.r), body.rewind, int64(len(frame))
	}
	return r.WithContext(ctx)
}

// Success reports a 2xx status.
func Success(status int) bool { return status >= 200 && status < 300 }
