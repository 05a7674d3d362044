package mcpengine

import "net/http"

// hookedClient returns a client that sends every request through hook
// first, sharing client's connection pool (its RoundTripper) and
// settings. nil hook: client itself.
func hookedClient(client *http.Client, hook func(*http.Request)) *http.Client {
	if hook == nil {
		return client
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := *client
	c.Transport = hookTransport{base: base, hook: hook}
	return &c
}

// hookTransport lets the embedder's hook edit each request. A
// RoundTripper must not modify the request it is given, so the hook gets
// a clone (its headers copied; the body is shared, unread).
type hookTransport struct {
	base http.RoundTripper
	hook func(*http.Request)
}

func (t hookTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	t.hook(r)
	return t.base.RoundTrip(r)
}

// CloseIdleConnections passes on to the shared transport, so that the
// engine's Close still releases idle connections.
func (t hookTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
