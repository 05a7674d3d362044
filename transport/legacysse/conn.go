package legacysse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
	"github.com/mcpengine/mcpengine/transport/internal/sse"
)

// conn is one HTTP+SSE connection; it implements transport.RequestConn
// (its answers arrive on the event stream, never on a POST: a caller never
// runs its own round trip).
type conn struct {
	sseURL *url.URL
	name   string // the redacted SSE URL, for logs and errors
	client *http.Client
	header http.Header // canonical copy of Dialer.Header
	max    int
	log    *slog.Logger

	// Set by the stream goroutine before it signals Dial; read-only after.
	endpoint string
	scrub    *httpx.Scrubber

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	sink   httpcore.Sink
	sched  *httpcore.Scheduler[*httpcore.Outgoing]

	closeOnce sync.Once
}

var _ transport.RequestConn = (*conn)(nil)

func newConn(d *Dialer, u *url.URL) *conn {
	c := &conn{
		sseURL: u,
		name:   httpx.RedactParsedURL(u),
		client: d.Client,
		header: httpx.Merge(d.Header),
		max:    d.MaxFrameBytes,
		log:    d.Logger,
	}
	if c.client == nil {
		c.client = httpx.DefaultClient()
	}
	if c.max <= 0 {
		c.max = transport.DefaultMaxFrameBytes
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.scrub = httpx.NewScrubber(c.header, u.String())
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.sched = httpcore.NewScheduler(c.post)
	return c
}

// ReadFrame is not used: the connection is a transport.RequestConn.
func (c *conn) ReadFrame() ([]byte, error) { return httpcore.ReadFrame(c.ctx.Err() != nil) }

// Start implements transport.RequestConn.
func (c *conn) Start(deliver func(*transport.Inbound), fail func(error)) {
	c.sink.Start(deliver, fail)
}

// WriteFrames queues one POST per frame and returns without waiting for
// the network. Notifications are sent in order with everything else; the
// frames are copied.
func (c *conn) WriteFrames(frames ...[]byte) error {
	msgs := make([]transport.Message, len(frames))
	for i, f := range frames {
		msgs[i] = httpcore.MessageOf(f)
	}
	return c.Send(msgs...)
}

// Send implements transport.RequestConn as WriteFrames says, for
// messages: what each is comes from the session, not from its frame.
func (c *conn) Send(msgs ...transport.Message) error {
	if c.ctx.Err() != nil {
		return transport.ErrClosed
	}
	if err := c.sink.Err(); err != nil {
		return err
	}
	for i := range msgs {
		o := &httpcore.Outgoing{}
		httpcore.OutgoingInto(o, &msgs[i])
		if !c.sched.Submit(o, o.Notification) {
			return transport.ErrClosed
		}
	}
	return nil
}

// HoldRequest implements transport.RequestConn: nothing is held, since
// the answer comes on the event stream, not on the request's POST: a
// caller that ran the POST would still wait for another goroutine.
func (c *conn) HoldRequest(messages.ID) bool { return false }

// RunRequest implements transport.RequestConn: it runs nothing.
func (c *conn) RunRequest(messages.ID) bool { return false }

// ReleaseRequest implements transport.RequestConn: nothing was held.
func (c *conn) ReleaseRequest(messages.ID) {}

// AbortRequest implements transport.RequestConn: nothing was held.
func (c *conn) AbortRequest(messages.ID) {}

// Negotiated implements transport.RequestConn: the 2024-11-05 transport
// sends no version header and has no stream to open on demand.
func (c *conn) Negotiated(transport.SessionInfo) {}

// SessionID implements transport.RequestConn: the endpoint URL carries
// the session, which has no id of its own.
func (c *conn) SessionID() string { return "" }

// Close cancels the stream and every POST in flight and waits for their
// goroutines. It is idempotent and always returns nil; the legacy
// transport has no session to delete.
func (c *conn) Close(context.Context) error {
	c.closeOnce.Do(func() {
		c.sink.Close()
		c.shutdown()
	})
	return nil
}

// shutdown refuses new POSTs, cancels the context (after which
// WriteFrames returns transport.ErrClosed) and waits for the goroutines.
func (c *conn) shutdown() {
	c.sched.Close()
	c.cancel()
	c.sched.Wait()
}

// readStream opens the event stream, reports the endpoint (or why there is
// none) on ready, then delivers message events until the stream ends.
func (c *conn) readStream(ready chan<- error) {
	body, err := c.open()
	if err != nil {
		ready <- err
		return
	}
	defer body.Close()
	rd := sse.NewReader(body, c.max)
	for {
		ev, err := rd.Next()
		if err != nil {
			switch {
			case c.ctx.Err() != nil:
				ready <- c.ctx.Err()
			case sse.IsTooLarge(err):
				ready <- &transport.FrameTooLargeError{Limit: c.max}
			case errors.Is(err, io.EOF):
				ready <- ErrNoEndpoint
			default:
				ready <- fmt.Errorf("legacysse: reading the event stream of %s: %w", c.name, httpcore.StripURL(err))
			}
			return
		}
		if ev.Type == "endpoint" {
			ep, err := resolveEndpoint(c.sseURL, string(ev.Data))
			if err != nil {
				ready <- err
				return
			}
			c.endpoint = ep.String()
			c.scrub = c.scrub.With(ep.Query().Get("sessionId"), ep.RawQuery)
			c.log.Debug("legacy SSE endpoint received", slog.String("url", c.name), slog.String("endpoint", httpx.RedactParsedURL(ep)))
			ready <- nil
			break
		}
		c.message(ev)
	}
	for {
		ev, err := rd.Next()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			if sse.IsTooLarge(err) {
				c.sink.Fail(&transport.FrameTooLargeError{Limit: c.max})
				return
			}
			c.log.Debug("legacy SSE stream ended", slog.String("url", c.name), slog.String("error", httpcore.ErrorReason(err, c.scrub)))
			c.sink.Fail(fmt.Errorf("legacysse: the event stream of %s ended: %w", c.name, httpcore.StripURL(err)))
			return
		}
		if ev.Type == "endpoint" {
			continue // only the first one counts
		}
		c.message(ev)
	}
}

// message delivers a message event.
func (c *conn) message(ev sse.Event) {
	if (ev.Type == "" || ev.Type == "message") && len(ev.Data) > 0 {
		in := httpcore.GetInbound(ev.Data, c.max)
		c.sink.Deliver(in)
		httpcore.PutInbound(in)
	}
}

// open sends the GET for the event stream and checks its answer.
func (c *conn) open() (io.ReadCloser, error) {
	req, err := httpcore.NewRequest(c.ctx, http.MethodGet, c.sseURL.String(), c.header, nil)
	if err != nil {
		return nil, fmt.Errorf("legacysse: GET %s: %w", c.name, httpcore.StripURL(err))
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("legacysse: GET %s: %w", c.name, httpcore.StripURL(err))
	}
	if !httpcore.Success(resp.StatusCode) {
		f := httpcore.StatusFailure(resp, c.scrub)
		_ = resp.Body.Close()
		return nil, &StatusError{Status: resp.StatusCode, Reason: "GET " + c.name + ": " + f.Reason}
	}
	if mt := httpcore.MediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		httpcore.Discard(resp.Body)
		return nil, fmt.Errorf("legacysse: GET %s answered %q, not an event stream", c.name, mt)
	}
	return resp.Body, nil
}

// post sends one frame to the endpoint (on the scheduler's goroutine).
func (c *conn) post(o *httpcore.Outgoing) {
	req, err := httpcore.NewRequest(c.ctx, http.MethodPost, c.endpoint, c.header, o.Frame)
	if err == nil {
		var resp *http.Response
		if resp, err = c.client.Do(req); err == nil {
			c.answered(o, resp)
			return
		}
	}
	switch {
	case c.ctx.Err() != nil:
	case transport.IsPermanent(err):
		c.sink.Fail(httpcore.StripURL(err))
	default:
		c.failed(o, httpcore.ErrorFailure(err, c.scrub))
	}
}

func (c *conn) answered(o *httpcore.Outgoing, resp *http.Response) {
	defer httpcore.Discard(resp.Body)
	switch {
	case resp.StatusCode == http.StatusNotFound:
		c.log.Debug("legacy SSE endpoint answered 404: session expired", slog.String("url", c.name))
		c.sink.Fail(transport.ErrSessionExpired)
	case !httpcore.Success(resp.StatusCode):
		c.failed(o, httpcore.StatusFailure(resp, c.scrub))
	}
}

// failed answers the frame's requests with a synthesized error; a failed
// notification or response is only logged (nobody waits for it).
func (c *conn) failed(o *httpcore.Outgoing, f transport.RequestFailure) {
	if len(o.Requests) == 0 {
		c.log.Warn("legacy SSE POST failed", slog.String("url", c.name), slog.String("reason", f.Reason))
		return
	}
	for _, id := range o.Requests {
		c.sink.DeliverFailure(id, f)
	}
}

// StatusError is returned by Dial when the GET for the event stream is
// answered with a non-success status. Reason holds the status text and a
// scrubbed excerpt of the body.
type StatusError struct {
	Status int
	Reason string
}

func (e *StatusError) Error() string { return "legacysse: " + e.Reason }
