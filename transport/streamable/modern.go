package streamable

import (
	"bytes"
	"io"
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
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
	if err == nil && httpcore.MediaType(resp.Header.Get("Content-Type")) == "application/json" && isErrorResponse(body) {
		c.deliverInbound(body, p)
		return
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.requestFailed(p, httpcore.StatusFailure(resp, c.scrub.Load()))
}

// isErrorResponse reports whether body is one JSON-RPC error response.
func isErrorResponse(body []byte) bool {
	var one [1]messages.Message
	msgs, errs := messages.AppendDecodedFrame(one[:0], body)
	return len(errs) == 0 && len(msgs) == 1 && msgs[0].Kind == messages.KindResponse && msgs[0].Error != nil
}
