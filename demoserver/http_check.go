package demoserver

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/messages"
)

// originAllowed implements the DNS-rebinding protection: a request with an
// Origin header is accepted only from a loopback origin, its own host, or
// one of o.AllowedOrigins. Requests without Origin (non-browser clients)
// are accepted.
func originAllowed(r *http.Request, o *HTTPOptions) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || slices.Contains(o.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

// isLoopbackHost reports whether host (no port) is localhost or a loopback
// IP address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// accepts reports whether the Accept header lists the media type exactly
// (parameters ignored), as the specification requires clients to list
// both application/json and text/event-stream; wildcards do not count.
func accepts(r *http.Request, mediaType string) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mt), mediaType) {
				return true
			}
		}
	}
	return false
}

// isJSONContent reports whether the request body is declared as JSON.
func isJSONContent(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// readBody reads a POST body within limit; it writes the error response
// (413, 400) itself and returns nil then.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) []byte {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httpError(w, http.StatusRequestEntityTooLarge, messages.CodeInvalidRequest, "body exceeds the size limit")
			return nil
		}
		httpError(w, http.StatusBadRequest, messages.CodeParseError, "reading the body: "+err.Error())
		return nil
	}
	return body
}

// httpError answers an HTTP error whose body is a JSON-RPC error response
// without an id, as the specification allows.
func httpError(w http.ResponseWriter, status int, code int64, msg string) {
	body := messages.AppendError(nil, messages.ID{}, &messages.WireError{Code: code, Message: msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// methodNotAllowed answers 405 with the Allow header.
func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	httpError(w, http.StatusMethodNotAllowed, messages.CodeInvalidRequest, "method not allowed")
}

// failCounter implements FailNth and FailEvery over the request POSTs of
// one handler, and FailGets over its GET streams.
type failCounter struct {
	posts atomic.Int64
	gets  atomic.Int64
}

// failPost counts one request POST and returns the status to fail it
// with, or 0.
func (f *failCounter) failPost(o *HTTPOptions) int {
	if o.FailNth <= 0 && o.FailEvery <= 0 {
		return 0
	}
	n := f.posts.Add(1)
	if n == int64(o.FailNth) || (o.FailEvery > 0 && n%int64(o.FailEvery) == 0) {
		return o.FailStatus
	}
	return 0
}

// failGet counts one GET opening a standalone stream and returns the
// status to fail it with, or 0.
func (f *failCounter) failGet(o *HTTPOptions) int {
	if o.FailGets <= 0 {
		return 0
	}
	if f.gets.Add(1) <= int64(o.FailGets) {
		return o.FailStatus
	}
	return 0
}

// injectedFailure answers a failure injected by a fault knob.
func injectedFailure(w http.ResponseWriter, status int) {
	http.Error(w, "demoserver: injected failure ("+http.StatusText(status)+")", status)
}
