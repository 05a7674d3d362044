package transport

import (
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
)

// RequestHeaders is a connection that sends a request's own HTTP headers
// with it (Streamable HTTP, one POST per request). The session calls
// SetRequestHeaders, for a request whose caller gave headers, before the
// frame holding that request reaches WriteFrames; the connection adds
// them to that request's POST (the transport's own headers win) and
// forgets them. Connections without per-request HTTP requests do not
// implement it, and the headers are dropped.
type RequestHeaders interface {
	SetRequestHeaders(id messages.ID, h http.Header)
}
