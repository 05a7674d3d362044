package websocket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	cws "github.com/coder/websocket"

	"github.com/mcpengine/mcpengine/transport"
)

// conn is one WebSocket connection; it implements transport.Conn.
type conn struct {
	ws     *cws.Conn
	body   *upgradedBody // the raw connection, shut by Close when its ctx ends; nil if not captured
	target string
	limit  int
	logger *slog.Logger

	closing atomic.Bool // set first thing by Close
	rerr    error       // sticky read failure; reader goroutine only
	werr    error       // sticky write failure; writer goroutine only

	// The status Close sends: normal unless ReadFrame saw something that
	// deserves another (a binary message). Guarded by reasonMu because the
	// reader sets it and Close, from any goroutine, reads it.
	reasonMu    sync.Mutex
	closeCode   cws.StatusCode
	closeReason string

	closeOnce sync.Once
	closeErr  error
}

func newConn(ws *cws.Conn, body *upgradedBody, d Dialer) *conn {
	c := &conn{
		ws:        ws,
		body:      body,
		target:    d.String(),
		limit:     d.maxFrameBytes(),
		logger:    d.logger(),
		closeCode: cws.StatusNormalClosure,
	}
	ws.SetReadLimit(int64(c.limit))
	return c
}

// ReadFrame returns the next text message (see transport.Conn); the caller
// owns it. Errors are sticky: once one is returned, every later call returns
// it again (transport.ErrClosed once Close has begun).
func (c *conn) ReadFrame() ([]byte, error) {
	if c.closing.Load() {
		return nil, transport.ErrClosed
	}
	if c.rerr != nil {
		return nil, c.rerr
	}
	// A context without Done: the library arms no timer per read. Close
	// unblocks the read by closing the connection.
	typ, b, err := c.ws.Read(context.Background())
	if err == nil && typ != cws.MessageText {
		c.logger.Warn("websocket: the server sent a binary message; closing the connection (MCP messages are text)",
			slog.String("server", c.target), slog.Int("bytes", len(b)))
		c.setCloseReason(cws.StatusUnsupportedData, "MCP messages are text")
		err = ErrBinaryMessage
	}
	if err != nil {
		if c.closing.Load() {
			return nil, transport.ErrClosed
		}
		c.rerr = c.readError(err)
		return nil, c.rerr
	}
	return b, nil
}

// readError maps the library's read errors to the transport's contract.
func (c *conn) readError(err error) error {
	switch {
	case errors.Is(err, ErrBinaryMessage):
		return err
	case errors.Is(err, cws.ErrMessageTooBig):
		return &transport.FrameTooLargeError{Limit: c.limit}
	}
	switch cws.CloseStatus(err) {
	case cws.StatusNormalClosure, cws.StatusGoingAway:
		return io.EOF
	case -1: // not a close frame
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("websocket: %s: the connection ended without a close frame: %w", c.target, io.ErrUnexpectedEOF)
		}
		return fmt.Errorf("websocket: %s: read: %w", c.target, err)
	}
	return fmt.Errorf("websocket: %s: the server closed the connection: %w", c.target, err)
}

// WriteFrames writes each frame as one text message, in order. Only one
// goroutine may call it at a time; Close from another goroutine unblocks it
// with transport.ErrClosed. After a failed write every later call returns
// the same error.
func (c *conn) WriteFrames(frames ...[]byte) error {
	if c.closing.Load() {
		return transport.ErrClosed
	}
	if c.werr != nil {
		return c.werr
	}
	for _, f := range frames {
		if err := c.ws.Write(context.Background(), cws.MessageText, f); err != nil {
			if c.closing.Load() {
				return transport.ErrClosed
			}
			c.werr = fmt.Errorf("websocket: %s: write: %w", c.target, err)
			return c.werr
		}
	}
	return nil
}

func (c *conn) setCloseReason(code cws.StatusCode, reason string) {
	c.reasonMu.Lock()
	c.closeCode, c.closeReason = code, reason
	c.reasonMu.Unlock()
}
