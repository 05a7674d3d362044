package mcpserver

import (
	"net/http"
	"net/url"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// The legacy HTTP+SSE transport (2024-11-05): a GET opens the session's
// one stream, whose first event ("endpoint") names the URL to POST the
// client's messages to; every server message follows on the stream.

// LegacySessionParam is the query parameter naming the session in the
// URL the endpoint event advertises.
const LegacySessionParam = "sessionId"

// AppendEndpointEvent appends the endpoint event advertising messageURL
// (a path, or an absolute URL) for session id.
func AppendEndpointEvent(buf []byte, messageURL, id string) []byte {
	return httpserve.AppendSSEEvent(buf, "", "endpoint", 0, []byte(messageURL+"?"+LegacySessionParam+"="+url.QueryEscape(id)))
}

// LegacySessionID is the session a legacy POST names.
func LegacySessionID(r *http.Request) string { return r.URL.Query().Get(LegacySessionParam) }
