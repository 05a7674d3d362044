package peers

import (
	"net/http"
	"time"
)

// newHTTPClient is the http.Client the raw loop, go-sdk and mcp-go share
// per Library: keep-alive pool sizes as mcpengine's own client has them
// (transport/httpx), so that 64 or 400 calls in flight reuse connections
// instead of opening one per request (net/http's default keeps 2 idle
// connections per host, and the rest would churn through ephemeral ports).
func newHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}

func closeHTTPClient(c *http.Client) { c.CloseIdleConnections() }
