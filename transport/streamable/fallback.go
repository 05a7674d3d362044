package streamable

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
	"github.com/mcpengine/mcpengine/transport/legacysse"
)

// fallbackTimeout bounds opening the legacy stream and waiting for its
// endpoint event. The session's initialize timeout usually ends it first
// (by closing the connection).
const fallbackTimeout = 30 * time.Second

// fallBack switches the connection to the 2024-11-05 HTTP+SSE transport
// after the server refused the initialize POST with status: the legacy
// connection delivers into the same sink, the initialize request is sent
// again through it, and every later frame goes there.
func (c *conn) fallBack(p *post, status int) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.holding = true
	c.mu.Unlock()
	c.log.Debug("falling back to the HTTP+SSE transport", slog.String("url", c.name), slog.Int("status", status))

	d := &legacysse.Dialer{URL: c.target.String(), Client: c.client, Header: c.header, MaxFrameBytes: c.max, Logger: c.log}
	ctx, cancel := context.WithTimeout(p.ctx(), fallbackTimeout)
	lc, err := d.Dial(ctx)
	cancel()
	if err != nil {
		c.mu.Lock()
		c.holding = false
		held := c.held
		c.held = nil
		c.mu.Unlock()
		if p.ctx().Err() != nil {
			return
		}
		c.requestFailed(p, transport.RequestFailure{
			Status: status,
			Reason: fmt.Sprintf("HTTP %d %s, and the HTTP+SSE fallback failed: %s", status, http.StatusText(status), httpcore.ErrorReason(err, c.scrub.Load())),
		})
		if len(held) > 0 {
			if err := c.Send(held...); err != nil {
				c.log.Debug("frames held during the fallback were not sent", slog.String("url", c.name), slog.String("error", err.Error()))
			}
		}
		return
	}
	pc := lc.(transport.RequestConn)

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = lc.Close(context.Background())
		return
	}
	c.legacy = pc
	held := c.held
	c.held, c.holding = nil, false
	// The legacy connection answers the initialize request from now on.
	for i := range p.pend {
		pd := &p.pend[i]
		pd.abandoned = true
		c.inflight.delete(pd.id)
	}
	c.mu.Unlock()

	pc.Start(func(in *transport.Inbound) { c.sink.Deliver(in) }, func(err error) { c.sink.Fail(err) })
	initialize := transport.Message{Frame: p.out.Frame, Kind: messages.KindRequest, ID: p.out.Requests[0], Method: messages.MethodInitialize}
	if err := pc.Send(append([]transport.Message{initialize}, held...)...); err != nil {
		c.sink.Fail(err)
	}
}
