package httpx

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpengine/mcpengine/transport/internal/h2stream"
)

// streamRouter is the RoundTripper of a client built by NewClient: every
// request that can go over HTTP/2 goes to streams, the client's own
// HTTP/2 connections; the rest (HTTP/1.1, a proxy in the way, an https
// server that does not choose h2) to base, net/http's transport. It sits
// where net/http's transport would, so that what wraps a client's
// RoundTripper (OAuth, the request hook) wraps both alike.
//
// Why not net/http's HTTP/2 client: it spends a goroutine per request in
// flight (and one per open event stream, for the stream's life) and about
// 2.5 KB of state per request; the streams cost one goroutine per
// connection and a few hundred bytes per request.
type streamRouter struct {
	base    *http.Transport
	streams *h2stream.Transport
	h2c     bool // http:// URLs speak prior-knowledge h2c
	proxy   func(*http.Request) (*url.URL, error)
}

func (r *streamRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.overStreams(req) {
		return r.streams.RoundTrip(req)
	}
	return r.base.RoundTrip(req)
}

// Poster returns the HTTP/2 transport that can take c's POSTs to u
// directly (h2stream's Post: no http.Request, no header map): when c is
// a client built by NewClient that nothing wraps (its Transport is the
// router itself: no OAuth, no request hook), with none of what
// http.Client adds to its RoundTripper (a cookie jar, an overall
// timeout, a redirect policy), and u goes over HTTP/2 (overStreams;
// decided once, for a connection's URL). nil otherwise: send an
// http.Request through c.
func Poster(c *http.Client, u *url.URL) *h2stream.Transport {
	r, ok := c.Transport.(*streamRouter)
	if !ok || c.Jar != nil || c.Timeout != 0 || c.CheckRedirect != nil || u.User != nil {
		return nil
	}
	if !r.overStreams(&http.Request{Method: http.MethodPost, URL: u, Host: u.Host, Header: http.Header{}}) {
		return nil
	}
	return r.streams
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
