package websocket

import (
	"context"
	"errors"
	"fmt"
	"net"

	cws "github.com/coder/websocket"
)

// Close runs the WebSocket close handshake (status 1000, or 1003 after a
// binary message) and releases the connection. A pending ReadFrame and
// WriteFrames return transport.ErrClosed, as does every later call. ctx
// bounds the handshake: when it ends first, the connection is shut without
// waiting for the server's answer and Close returns ctx's error. Close
// returns nil when the handshake completed or the connection was already
// gone (the server closed it, or a read failed); it is idempotent, later and
// concurrent calls returning the first call's result.
func (c *conn) Close(ctx context.Context) error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown(ctx) })
	return c.closeErr
}

func (c *conn) shutdown(ctx context.Context) error {
	c.closing.Store(true)
	c.reasonMu.Lock()
	code, reason := c.closeCode, c.closeReason
	c.reasonMu.Unlock()

	done := make(chan error, 1)
	// Owner: this Close, which receives from done before returning. Exits
	// when the handshake completes, or at once after the connection is shut
	// below (every read and write then fails), or, if the connection could
	// not be captured, after the library's own 10 s bound.
	go func() { done <- c.ws.Close(code, reason) }()

	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if c.body != nil {
			_ = c.body.Close()
		} else {
			_ = c.ws.CloseNow()
		}
		<-done
		return fmt.Errorf("websocket: %s: close handshake cut short: %w", c.target, ctx.Err())
	}
	// net.ErrClosed: the connection was already gone. A close status:
	// the server answered, with another code than ours (it echoes the 1009
	// the library sent for an oversize message, say). Both are a finished
	// close, not a failure to report.
	if err != nil && !errors.Is(err, net.ErrClosed) && cws.CloseStatus(err) == -1 {
		return fmt.Errorf("websocket: %s: close: %w", c.target, err)
	}
	return nil
}
