package streamable

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
	"github.com/mcpengine/mcpengine/transport/internal/sse"
)

// listen runs the standalone GET stream until ctx ends (Close, or the
// session no longer listening) or the server turns out to offer none. It
// never fails the connection: a broken stream is reopened, after the
// server's retry time or with backoff, resuming with Last-Event-ID.
func (c *conn) listen(ctx context.Context, l *listener) {
	defer func() {
		c.mu.Lock()
		if c.get == l {
			c.get = nil
		}
		c.mu.Unlock()
		l.stop()
		l.markOpened()
	}()
	rd := sse.NewReader(nil, c.max)
	var seen eventIDs
	failures := 0
	for {
		if failures > 0 || rd.LastEventID() != "" || seen.seenAny() {
			if !sleep(ctx, c.retryDelay(rd, max(failures-1, 0))) {
				return
			}
		}
		resp, sid, err := c.send(ctx, http.MethodGet, nil, rd.LastEventID())
		// Whatever the answer, waiting longer would not open the stream
		// sooner: let notifications/initialized go.
		l.markOpened()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if transport.IsPermanent(err) {
				c.sink.Fail(httpcore.StripURL(err))
				return
			}
			failures++
			c.log.Debug("opening the GET stream failed", slog.String("url", c.name), slog.String("error", httpcore.ErrorReason(err, c.scrub.Load())))
			continue
		}
		switch status := resp.StatusCode; {
		case status == http.StatusMethodNotAllowed:
			httpcore.Discard(resp.Body)
			c.noGetStream("the server offers no GET stream (405)")
			return
		case status == http.StatusNotFound && sid != "":
			httpcore.Discard(resp.Body)
			// Either the session expired or the server has no GET route at
			// all; only a POST can tell.
			if c.probeSession(ctx) {
				c.noGetStream("the server answered the GET stream with 404 but knows the session")
			}
			return
		case !httpcore.Success(status) || httpcore.MediaType(resp.Header.Get("Content-Type")) != "text/event-stream":
			f := httpcore.StatusFailure(resp, c.scrub.Load())
			_ = resp.Body.Close()
			failures++
			c.log.Warn("opening the GET stream failed", slog.String("url", c.name), slog.String("reason", f.Reason))
			continue
		}
		failures = 0
		// Only the body is kept while the stream is open: the response
		// (its headers, the request it points to) can go.
		body := resp.Body
		rd.Reset(body)
		err = c.consume(rd, &seen, nil)
		_ = body.Close()
		if ctx.Err() != nil {
			return
		}
		if sse.IsTooLarge(err) {
			// Resuming would replay the same event: start afresh and
			// accept the loss of that one message.
			c.log.Warn("dropped an event of the GET stream over the size limit", slog.String("url", c.name), slog.Int("limit", c.max))
			rd, seen = sse.NewReader(nil, c.max), eventIDs{}
			failures++
			continue
		}
		c.log.Debug("the GET stream ended", slog.String("url", c.name), slog.String("error", httpcore.ErrorReason(err, c.scrub.Load())))
		if rd.LastEventID() == "" {
			failures = 1 // nothing to resume from: wait ReconnectDelay before reopening
		}
	}
}

// listenGateWait bounds how long notifications/initialized (or a
// resources/subscribe) waits for the GET stream's answer: a server that
// holds the headers of its GET stream until it has an event to send must
// not stall the session.
const listenGateWait = 5 * time.Second

// awaitListening holds notifications/initialized and resources/subscribe
// until the GET stream the session asked for has its answer: a server
// sends what happens meanwhile (a list change right after initialize, an
// update right after the subscription) on the standalone stream only if
// one is open when it happens, and drops it otherwise.
func (c *conn) awaitListening(ctx context.Context) {
	c.mu.Lock()
	l := c.get
	c.mu.Unlock()
	if l == nil {
		return
	}
	if testHookAwaitListening != nil {
		testHookAwaitListening()
	}
	t := time.NewTimer(listenGateWait)
	defer t.Stop()
	select {
	case <-l.opened:
	case <-ctx.Done():
	case <-t.C:
		c.log.Debug("notifications/initialized sent before the GET stream answered", slog.String("url", c.name))
	}
}

// testHookAwaitListening, set by tests only, runs when a frame starts
// waiting for the GET stream's answer.
var testHookAwaitListening func()

// noGetStream records that the server has no standalone stream, so that
// later Negotiated calls do not try again.
func (c *conn) noGetStream(why string) {
	c.mu.Lock()
	c.getOff = true
	c.mu.Unlock()
	c.log.Debug(why, slog.String("url", c.name))
}

// probeID is the id of the ping the transport sends itself; the session's
// ids are numbers, so it cannot collide with one of them.
const probeID = `"mcpengine-session-probe"`

// probeSession asks the server, with a ping of the transport's own,
// whether it still knows the session. A 404 fails the connection with
// transport.ErrSessionExpired and returns false; any other outcome returns
// true. The ping's answer is read by no one.
func (c *conn) probeSession(ctx context.Context) bool {
	resp, sid, err := c.send(ctx, http.MethodPost, []byte(`{"jsonrpc":"2.0","id":`+probeID+`,"method":"ping"}`), "")
	if err != nil {
		return ctx.Err() == nil
	}
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && sid != "" {
		c.expire()
		return false
	}
	return true
}
