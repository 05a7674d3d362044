package streamable

import (
	"bytes"
	"io"
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// modernErrorBytes caps the error body of a refused 2026-07-28 request
// that is read for its JSON-RPC error.
const modernErrorBytes = 64 << 10

// modernRefusal handles a non-2xx answer to a 2026-07-28 request. That
// era answers its own refusals (unsupported version, missing client
// capability, header mismatch, unknown method) with an HTTP 4xx and a
// JSON-RPC error body: the caller gets that error, whose code tells the
// session what to do (move to another version, fall back to initialize).
// Any other answer fails the request as usual, with the HTTP status, which
// is how a server of the old era shows itself (400, 404 or 405 without a
// modern error body).
func (c *conn) modernRefusal(p *post, resp *http.Response) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, modernErrorBytes))
	if err == nil && httpcore.MediaType(resp.Header.Get("Content-Type")) == "application/json" {
		in := httpcore.GetInbound(body, c.max)
		isError := isErrorResponse(in)
		if isError {
			c.deliverDecoded(in, p)
		}
		httpcore.PutInbound(in)
		if isError {
			return
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.requestFailed(p, httpcore.StatusFailure(resp, c.scrub.Load()))
}

// isErrorResponse reports whether in is one JSON-RPC error response.
func isErrorResponse(in *transport.Inbound) bool {
	msgs := in.Messages
	return len(in.Errors) == 0 && len(msgs) == 1 && msgs[0].Kind == messages.KindResponse && msgs[0].Error != nil
}

// cancelByClosing reports whether p is a cancellation that the 2026-07-28
// transport expresses by closing the request's answer stream alone: that
// era defines no client notifications over HTTP, so notifications/cancelled
// is not POSTed; finish aborts the requests it names, which closes their
// streams, and the server takes that as the cancellation.
func (c *conn) cancelByClosing(p *post) bool {
	if !p.out.Cancel.IsValid() || len(p.out.Requests) > 0 {
		return false
	}
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	return messages.IsModernVersion(version)
}
