package httpx

import (
	"encoding/base64"
	"net/http"
)

// The helpers below return the headers one authentication scheme adds to
// every request; combine them with a server's other headers using Merge.
// The transports send such headers on every request of a session and never
// log their values.

// Bearer returns "Authorization: Bearer <token>" (an OAuth access token or
// a static API token).
func Bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// Basic returns HTTP basic authentication for user and password.
func Basic(user, password string) http.Header {
	cred := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	return http.Header{"Authorization": {"Basic " + cred}}
}

// APIKey returns the header name set to value (for example X-API-Key). The
// name is canonicalized.
func APIKey(name, value string) http.Header {
	return http.Header{http.CanonicalHeaderKey(name): {value}}
}

// Merge combines header sets into a new one, nil when every set is empty
// (a connection holds its merged set for its life and only reads it).
// Keys are canonicalized; for a key present in several sets the last set
// wins (its values replace the earlier ones rather than adding to them),
// so per-server settings can override engine-wide ones.
func Merge(sets ...http.Header) http.Header {
	var out http.Header
	for _, h := range sets {
		for k, v := range h {
			if out == nil {
				out = make(http.Header, len(h))
			}
			out[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
		}
	}
	return out
}
