package demoserver

import (
	"context"
	"errors"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
)

// HTTPServer is a Server listening on TCP with every HTTP transport (an
// HTTPHandler), like httptest.Server: for tests and `engine serve`.
type HTTPServer struct {
	// Handler is what the server serves; its sub-handlers take the
	// on-demand faults (Handler.Streamable.ExpireSession).
	Handler *HTTPHandler
	// URL is the base URL, "http://host:port", without a path.
	URL string

	srv *httpserve.Server
}

// ListenHTTP listens on addr (host:port; port 0 picks a free one) and
// serves HTTPHandler(o) there until Close, over HTTP/1.1 and h2c (see
// mcpserver.Listen). It does not check that addr is a loopback address;
// the CLI does.
func (s *Server) ListenHTTP(addr string, o HTTPOptions) (*HTTPServer, error) {
	h := s.HTTPHandler(o)
	url, srv, err := mcpserver.Listen(addr, h, s.opts.Logger, mcpserver.ListenOptions{
		ReadHeaderTimeout: o.ReadHeaderTimeout, MaxConnections: o.MaxConnections,
	})
	if err != nil {
		_ = h.Close(context.Background()) // no session yet: returns at once
		return nil, err
	}
	return &HTTPServer{Handler: h, URL: url, srv: srv}, nil
}

// StreamableURL is the Streamable HTTP endpoint's URL.
func (h *HTTPServer) StreamableURL() string { return h.URL + PathStreamable }

// SSEURL is the legacy HTTP+SSE stream's URL.
func (h *HTTPServer) SSEURL() string { return h.URL + PathSSE }

// WebSocketURL is the WebSocket endpoint's URL (ws://).
func (h *HTTPServer) WebSocketURL() string { return "ws" + h.URL[len("http"):] + PathWebSocket }

// Close ends every session (which ends their streams), then shuts the
// http.Server down; when ctx ends first it closes the remaining
// connections outright. It returns when everything it started has exited.
func (h *HTTPServer) Close(ctx context.Context) error {
	err := h.Handler.Close(ctx)
	return errors.Join(err, h.srv.Close(ctx))
}
