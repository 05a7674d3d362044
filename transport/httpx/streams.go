package httpx

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpengine/mcpengine/transport/internal/h2stream"
)

// longLivedKey marks a request context as a long-lived stream's.
type longLivedKey struct{}

// LongLived returns ctx marked so that a client built by NewClient sends
// its request as a long-lived stream: over HTTP/2 (h2c with
// HTTP2PriorKnowledge, or https whose server chooses h2) on the client's
// own stream connections, which cost one goroutine per connection rather
// than net/http's one per open stream. The Streamable HTTP transport
// marks its listening streams (the GET stream, the 2026-07-28
// subscriptions/listen POST) so; every other request goes through
// net/http as before.
func LongLived(ctx context.Context) context.Context {
	return context.WithValue(ctx, longLivedKey{}, true)
}

// IsLongLived reports whether ctx was marked by LongLived.
func IsLongLived(ctx context.Context) bool {
	v, _ := ctx.Value(longLivedKey{}).(bool)
	return v
}

// streamRouter is the RoundTripper of a client built by NewClient: the
// requests marked LongLived that can go over HTTP/2 go to streams, every
// other request to base. It sits where net/http's transport would, so
// that what wraps a client's RoundTripper (OAuth, the request hook) wraps
// both alike.
type streamRouter struct {
	base    *http.Transport
	streams *h2stream.Transport
	h2c     bool // http:// URLs speak prior-knowledge h2c
	proxy   func(*http.Request) (*url.URL, error)
}

func (r *streamRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	if IsLongLived(req.Context()) && r.overStreams(req) {
		return r.streams.RoundTrip(req)
	}
	return r.base.RoundTrip(req)
}

// overStreams reports whether req can go over the stream connections:
// HTTP/2 is possible for its scheme and no proxy is in the way (the
// stream client dials the origin itself).
func (r *streamRouter) overStreams(req *http.Request) bool {
	switch strings.ToLower(req.URL.Scheme) {
	case "https":
	case "http":
		if !r.h2c {
			return false
		}
	default:
		return false
	}
	if r.proxy != nil {
		if u, err := r.proxy(req); err != nil || u != nil {
			return false
		}
	}
	return true
}

// CloseIdleConnections closes both sides' idle connections; once no
// stream is open it also waits for the stream connections' read loops.
func (r *streamRouter) CloseIdleConnections() {
	r.base.CloseIdleConnections()
	r.streams.CloseIdleConnections()
}

// NetHTTPTransport returns the net/http transport beneath a client built
// by NewClient (or c's transport itself when it is one).
func NetHTTPTransport(c *http.Client) (*http.Transport, bool) {
	switch t := c.Transport.(type) {
	case *http.Transport:
		return t, true
	case *streamRouter:
		return t.base, true
	}
	return nil, false
}
