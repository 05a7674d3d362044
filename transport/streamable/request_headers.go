package streamable

import "net/http"

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
