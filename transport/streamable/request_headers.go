package streamable

import (
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

var _ transport.RequestHeaders = (*conn)(nil)

// SetRequestHeaders implements transport.RequestHeaders: h goes with the
// POST of request id, which WriteFrames receives next.
func (c *conn) SetRequestHeaders(id messages.ID, h http.Header) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.legacy != nil {
		return
	}
	if c.callHeaders == nil {
		c.callHeaders = map[messages.ID]http.Header{}
	}
	c.callHeaders[id] = h
}

// takeHeadersLocked moves the caller's headers of p's request, if any,
// into p, whatever becomes of p: nothing stays behind in the map. c.mu
// must be held.
func (c *conn) takeHeadersLocked(p *post) {
	if len(c.callHeaders) == 0 {
		return
	}
	for _, id := range p.out.Requests {
		if h, ok := c.callHeaders[id]; ok {
			delete(c.callHeaders, id)
			if len(p.out.Requests) == 1 {
				p.header = h
			}
		}
	}
}

// addCallerHeaders adds a request's own headers to req; the transport's
// (content negotiation, configured headers, session and protocol
// headers, set before or after) win.
func addCallerHeaders(req *http.Request, h http.Header) {
	for k, v := range h {
		if _, set := req.Header[k]; !set {
			req.Header[k] = v
		}
	}
}
