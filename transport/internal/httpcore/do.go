package httpcore

import (
	"crypto/tls"
	"net/http"
)

// Do sends req as client.Do does. When the client uses none of what
// http.Client adds to its RoundTripper (a cookie jar, an overall timeout,
// a redirect policy of its own) and the URL carries no user info, it
// calls the RoundTripper itself: Client.Do copies every request's
// headers up front in case a redirect follows, which on the call path
// costs four allocations and about a microsecond per request. A redirect
// answer is then handed to client.Do from the start (the request again,
// its body rewound), so redirects are followed as before; the servers
// that redirect a POST pay one round trip more. Errors are the
// RoundTripper's, not wrapped in *url.Error (callers strip that wrapper
// anyway: it repeats the URL), except that an HTTP answer to a TLS
// handshake is http.ErrSchemeMismatch, as Client.Do reports it.
func Do(client *http.Client, req *http.Request) (*http.Response, error) {
	if client.Jar != nil || client.Timeout != 0 || client.CheckRedirect != nil || req.URL.User != nil {
		return client.Do(req)
	}
	rt := client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(req)
	switch {
	case err != nil:
		return nil, SchemeMismatch(err)
	case resp == nil:
		return nil, errNilResponse
	case resp.Body == nil:
		resp.Body = http.NoBody
	}
	if !Redirect(resp) {
		return resp, nil
	}
	Discard(resp.Body)
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return client.Do(again)
}

var errNilResponse = errorString("mcpengine/transport: the HTTP client's RoundTripper returned neither a response nor an error")

type errorString string

func (e errorString) Error() string { return string(e) }

// Redirect reports an answer that http.Client follows: a redirect
// status with a Location.
func Redirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}

// SchemeMismatch is err, or http.ErrSchemeMismatch when err is an HTTP
// answer to a TLS handshake, as Client.Do reports it.
func SchemeMismatch(err error) error {
	if rh, ok := err.(tls.RecordHeaderError); ok && string(rh.RecordHeader[:]) == "HTTP/" {
		return http.ErrSchemeMismatch
	}
	return err
}
