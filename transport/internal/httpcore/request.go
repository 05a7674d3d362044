package httpcore

import (
	"bytes"
	"context"
	"io"
	"net/http"
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

// Success reports a 2xx status.
func Success(status int) bool { return status >= 200 && status < 300 }
