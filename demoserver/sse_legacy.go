package demoserver

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// SSEHandler serves the demo server over the legacy HTTP+SSE transport of
// protocol 2024-11-05:
//
//   - GET opens a session's stream. Its first event is "endpoint", whose
//     data is the URL to POST to (relative: MessagePath?sessionId=…, or
//     absolute on LegacyEndpointOrigin for the cross-origin test); every
//     server message follows as a "message" event.
//   - POST to that URL (?sessionId=…) delivers one JSON-RPC message or
//     batch and gets 202; answers go on the stream. An unknown session
//     gets 404.
//
// The session ends when its GET stream closes. Close ends every session.
type SSEHandler struct {
	srv    *Server
	o      HTTPOptions
	hub    *hub
	faults failCounter
}

// SSEHandler returns a legacy HTTP+SSE handler for this server.
func (s *Server) SSEHandler(o HTTPOptions) *SSEHandler {
	h := &SSEHandler{srv: s, o: o.withDefaults()}
	h.hub = newHub(s, &h.o, "sse")
	return h
}

// Close ends every session and waits for them; see hub.close for ctx.
func (h *SSEHandler) Close(ctx context.Context) error { return h.hub.close(ctx) }

// SessionIDs lists the live sessions' ids.
func (h *SSEHandler) SessionIDs() []string { return h.hub.ids() }

// ExpireSession ends a session on demand: its stream ends and later POSTs
// for it get 404. It reports whether the session was live.
func (h *SSEHandler) ExpireSession(id string) bool { return h.hub.endID(id) }

// ServeHTTP implements http.Handler: GET opens a stream, POST delivers a
// message.
func (h *SSEHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.o.guard().Check(w, r) {
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.stream(w, r)
	case http.MethodPost:
		h.message(w, r)
	default:
		httpserve.MethodNotAllowed(w, "GET, POST")
	}
}

// endpoint is the URL the endpoint event advertises (without the
// session).
func (h *SSEHandler) endpoint() string {
	if h.o.LegacyEndpointOrigin != "" {
		return strings.TrimRight(h.o.LegacyEndpointOrigin, "/") + h.o.MessagePath
	}
	return h.o.MessagePath
}

func (h *SSEHandler) stream(w http.ResponseWriter, r *http.Request) {
	c := newLegacyConn()
	s := &httpSession{id: mcpserver.NewSessionID(), conn: c, legacy: c, end: c.in.finish}
	if h.hub.start(s) != nil {
		httpserve.Error(w, http.StatusServiceUnavailable, messages.CodeInternalError, "server shutting down")
		return
	}
	// The session lives as long as this stream: when the client goes
	// away, its inbox reaches EOF and the session ends.
	h.hub.hold(s)
	defer h.hub.release(s)
	defer h.hub.end(s)

	rc := http.NewResponseController(w)
	httpserve.SetSSEHeaders(w)
	w.WriteHeader(http.StatusOK)
	buf := mcpserver.AppendEndpointEvent(nil, h.endpoint(), s.id)
	if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
		return
	}
	ending := false
	var frames [][]byte
	for {
		frames = c.take(frames[:0])
		buf = buf[:0]
		for _, f := range frames {
			buf = httpserve.AppendSSEEvent(buf, "", "message", 0, f)
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
				return
			}
		}
		if ending {
			return
		}
		select {
		case <-c.wake:
		case <-r.Context().Done():
			return
		case <-s.done:
			if s.crashed() {
				panic(http.ErrAbortHandler)
			}
			ending = true
		}
	}
}

func (h *SSEHandler) message(w http.ResponseWriter, r *http.Request) {
	s := h.hub.lookup(mcpserver.LegacySessionID(r))
	if s == nil || s.legacy == nil {
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
		return
	}
	defer h.hub.release(s)
	body, msgs := httpserve.ReadMessages(w, r, h.o.MaxBodyBytes)
	if body == nil {
		return
	}
	if hasRequest(msgs) {
		if status := h.faults.failPost(&h.o); status != 0 {
			injectedFailure(w, status)
			return
		}
	}
	if !s.legacy.in.push(body) {
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session ended")
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte("Accepted"))
}

func hasRequest(msgs []messages.Message) bool {
	for i := range msgs {
		if msgs[i].Kind == messages.KindRequest {
			return true
		}
	}
	return false
}

// legacyConn adapts a legacy session to transport.Conn: ReadFrame yields
// the POSTed frames, WriteFrames queues frames for the GET stream, whose
// handler writes them. It never blocks on the client.
type legacyConn struct {
	in *inbox

	mu     sync.Mutex
	out    [][]byte
	closed bool
	wake   chan struct{} // capacity 1
}

func newLegacyConn() *legacyConn {
	return &legacyConn{in: newInbox(), wake: make(chan struct{}, 1)}
}

// ReadFrame returns the next POSTed frame (transport.Conn).
func (c *legacyConn) ReadFrame() ([]byte, error) { return c.in.read() }

// WriteFrames queues copies of the frames for the stream (transport.Conn).
func (c *legacyConn) WriteFrames(frames ...[]byte) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return transport.ErrClosed
	}
	for _, f := range frames {
		c.out = append(c.out, bytes.Clone(f))
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// Close ends the connection (transport.Conn); queued frames stay for the
// stream to write.
func (c *legacyConn) Close(context.Context) error {
	c.in.close()
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

// take moves the queued frames into dst.
func (c *legacyConn) take(dst [][]byte) [][]byte {
	c.mu.Lock()
	dst = append(dst, c.out...)
	clear(c.out)
	c.out = c.out[:0]
	c.mu.Unlock()
	return dst
}
