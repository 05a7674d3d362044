package demoserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/coder/websocket"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/transport"
)

// WebSocketHandler serves the demo server over WebSocket: one session per
// connection, one JSON-RPC message (or batch) per text message. The client
// must offer the "mcp" subprotocol (400 otherwise), and the server selects
// it. Close ends every connection.
type WebSocketHandler struct {
	srv *Server
	o   HTTPOptions
	hub *hub
}

// WebSocketHandler returns a WebSocket handler for this server.
func (s *Server) WebSocketHandler(o HTTPOptions) *WebSocketHandler {
	h := &WebSocketHandler{srv: s, o: o.withDefaults()}
	h.hub = newHub(s, &h.o, "ws")
	return h
}

// Close ends every connection and waits for their sessions; see hub.close
// for ctx.
func (h *WebSocketHandler) Close(ctx context.Context) error { return h.hub.close(ctx) }

// ServeHTTP implements http.Handler: it upgrades the request and serves
// the connection until it ends.
func (h *WebSocketHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.o.guard().Check(w, r) {
		return
	}
	if isUpgrade(r) && !offersSubprotocol(r, WebSocketSubprotocol) {
		http.Error(w, `demoserver: the "`+WebSocketSubprotocol+`" WebSocket subprotocol is required`, http.StatusBadRequest)
		return
	}
	wc, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{WebSocketSubprotocol},
		// The origin was checked above, with the same rule as the other
		// transports (loopback origins are allowed).
		InsecureSkipVerify: true,
	})
	if err != nil {
		return // Accept answered the client
	}
	wc.SetReadLimit(h.o.MaxBodyBytes)
	ctx, cancel := context.WithCancel(h.hub.ctx)
	defer cancel()
	c := &wsConn{c: wc, ctx: ctx, cancel: cancel}
	// Ending the session early (Close) drops the connection at once, as a
	// server going away would: a closing handshake could wait seconds for
	// an unresponsive client.
	s := &httpSession{id: mcpserver.NewSessionID(), conn: c, end: cancel}
	if h.hub.add(s) != nil {
		_ = wc.Close(websocket.StatusTryAgainLater, "server shutting down")
		return
	}
	// The connection's whole life runs on this handler goroutine.
	h.hub.serve(s)
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func offersSubprotocol(r *http.Request, proto string) bool {
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(p) == proto {
				return true
			}
		}
	}
	return false
}

// wsConn adapts a WebSocket to transport.Conn.
type wsConn struct {
	c      *websocket.Conn
	ctx    context.Context // cancelled by Close: unblocks Read and Write
	cancel context.CancelFunc
}

// ReadFrame reads one text message (transport.Conn). A normal close by the
// client is io.EOF; a binary message is refused, closing the connection.
func (c *wsConn) ReadFrame() ([]byte, error) {
	typ, data, err := c.c.Read(c.ctx)
	if err != nil {
		switch websocket.CloseStatus(err) {
		case websocket.StatusNormalClosure, websocket.StatusGoingAway:
			return nil, io.EOF
		}
		if c.ctx.Err() != nil {
			return nil, transport.ErrClosed
		}
		return nil, err
	}
	if typ != websocket.MessageText {
		c.closeWith(websocket.StatusUnsupportedData)
		return nil, errors.New("demoserver: binary WebSocket message (MCP messages are text)")
	}
	return data, nil
}

// WriteFrames sends each frame as one text message (transport.Conn).
func (c *wsConn) WriteFrames(frames ...[]byte) error {
	for _, f := range frames {
		if err := c.c.Write(c.ctx, websocket.MessageText, f); err != nil {
			if c.ctx.Err() != nil {
				return transport.ErrClosed
			}
			return err
		}
	}
	return nil
}

// Close closes the WebSocket (transport.Conn): with the closing handshake
// while ctx leaves time for it, at once otherwise.
func (c *wsConn) Close(ctx context.Context) error {
	if ctx.Err() != nil {
		c.cancel()
		_ = c.c.CloseNow()
		return nil
	}
	c.closeWith(websocket.StatusNormalClosure)
	return nil
}

// closeWith runs the closing handshake with code (it waits a few seconds
// at most for the client's reply), then releases everything.
func (c *wsConn) closeWith(code websocket.StatusCode) {
	_ = c.c.Close(code, "")
	c.cancel()
}
