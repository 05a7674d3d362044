package demoserver

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// HTTPHandler serves every HTTP transport of a Server on one listener:
//
//	PathStreamable  /mcp      Streamable HTTP (POST, GET, DELETE)
//	PathSSE         /sse      legacy HTTP+SSE stream (GET)
//	PathMessage     /message  legacy HTTP+SSE messages (POST ?sessionId=…)
//	PathWebSocket   /ws       WebSocket, subprotocol "mcp"
//
// With LegacyOnly it answers at /mcp like a 2024-11-05 server: a POST gets
// LegacyProbeStatus and a GET opens a legacy stream, which is how a client
// probing with initialize finds out it must fall back.
type HTTPHandler struct {
	Streamable *StreamableHandler
	SSE        *SSEHandler
	WebSocket  *WebSocketHandler

	o       HTTPOptions
	mux     *http.ServeMux
	guarded http.Handler // mux behind the Host, Origin and body checks
}

// HTTPHandler returns the combined handler. Close it before shutting the
// http.Server down: open streams and WebSockets end with their sessions.
func (s *Server) HTTPHandler(o HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{
		Streamable: s.StreamableHandler(o),
		SSE:        s.SSEHandler(o),
		WebSocket:  s.WebSocketHandler(o),
		o:          o.withDefaults(),
		mux:        http.NewServeMux(),
	}
	h.mux.HandleFunc(PathStreamable, h.streamable)
	h.mux.Handle(PathSSE, h.SSE)
	h.mux.HandleFunc(PathMessage, h.message)
	h.mux.Handle(PathWebSocket, h.WebSocket)
	h.guarded = h.o.guard().Wrap(h.mux)
	return h
}

// ServeHTTP implements http.Handler.
// Every request passes the guard first (httpserve.Guard): Host and
// Origin, and a deadline for its body.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.guarded.ServeHTTP(w, r) }

// Close closes the three handlers (see StreamableHandler.Close).
func (h *HTTPHandler) Close(ctx context.Context) error {
	return errors.Join(h.Streamable.Close(ctx), h.SSE.Close(ctx), h.WebSocket.Close(ctx))
}

func (h *HTTPHandler) streamable(w http.ResponseWriter, r *http.Request) {
	if !h.o.LegacyOnly {
		h.Streamable.ServeHTTP(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.SSE.ServeHTTP(w, r)
	case http.MethodPost:
		if h.o.LegacyProbeStatus == http.StatusMethodNotAllowed {
			httpserve.MethodNotAllowed(w, "GET")
			return
		}
		http.Error(w, "demoserver: this server speaks HTTP+SSE (2024-11-05) only", h.o.LegacyProbeStatus)
	default:
		httpserve.MethodNotAllowed(w, "GET")
	}
}

func (h *HTTPHandler) message(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		httpserve.MethodNotAllowed(w, "POST")
		return
	}
	h.SSE.ServeHTTP(w, r)
}
