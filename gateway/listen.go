package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpengine/mcpengine/internal/mcpserver"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// HTTPServer is the gateway's handler served on a TCP listener (Listen).
type HTTPServer struct {
	// URL is the base URL, "http://host:port", without a path.
	URL string

	srv *httpserve.Server
}

// ListenOptions say where a gateway may listen.
type ListenOptions struct {
	// AllowRemote permits an address that is not loopback. Even then the
	// gateway refuses to listen beyond this host without client tokens:
	// an open gateway would hand its servers to anyone who can reach it.
	AllowRemote bool
}

// Listen serves the gateway's handler on addr (host:port; port 0 picks a
// free one) until Close, of the server or of the gateway, over HTTP/1.1
// and h2c (see mcpserver.Listen).
func (g *Gateway) Listen(addr string, o ListenOptions) (*HTTPServer, error) {
	if !httpserve.IsLoopbackAddr(addr) {
		switch {
		case !o.AllowRemote:
			return nil, fmt.Errorf("gateway: %s is not a loopback address; allow remote clients explicitly", addr)
		case len(g.cfg.Clients) == 0:
			return nil, fmt.Errorf("gateway: listening on %s needs client tokens: without them anyone who can reach it could use every server", addr)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, errors.New("gateway: closed")
	}
	url, srv, err := mcpserver.Listen(addr, g.handler, g.log, mcpserver.ListenOptions{
		ReadHeaderTimeout: g.cfg.ReadHeaderTimeout, MaxConnections: g.cfg.MaxConnections,
	})
	if err != nil {
		return nil, err
	}
	s := &HTTPServer{URL: url, srv: srv}
	g.listeners = append(g.listeners, s)
	return s, nil
}

// MCPURL is the aggregated endpoint's URL.
func (s *HTTPServer) MCPURL() string { return s.URL + PathMCP }

// SSEURL is the legacy HTTP+SSE endpoint's URL.
func (s *HTTPServer) SSEURL() string { return s.URL + PathSSE }

// RouteURL is the routing protocol's URL.
func (s *HTTPServer) RouteURL() string { return s.URL + PathRoute }

// Close stops accepting requests and waits for those in progress until
// ctx ends, then closes the rest. Open streams end when their client
// sessions do (Gateway.Close ends them first).
func (s *HTTPServer) Close(ctx context.Context) error { return s.srv.Close(ctx) }
