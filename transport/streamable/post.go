package streamable

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// runPost sends one frame and handles its answer, on the scheduler's
// goroutine for this frame. When it returns, every request of the frame
// has been answered, failed, abandoned, or dropped by Close.
func (c *conn) runPost(p *post) {
	defer c.finish(p)
	if c.cancelByClosing(p) {
		return // finish aborts the cancelled requests' POSTs
	}
	if p.out.Initialized || p.out.Subscribe {
		c.awaitListening(p.ctx())
	}
	resp, sid, err := c.sendPost(p)
	if err != nil {
		switch {
		case transport.IsPermanent(err):
			c.sink.Fail(httpcore.StripURL(err))
		case p.ctx().Err() == nil:
			c.requestFailed(p, httpcore.ErrorFailure(err, c.scrub.Load()))
		}
		return
	}
	defer resp.Body.Close()
	if resp.ProtoMajor == 2 && len(p.out.Frame) > 0 {
		// net/http's HTTP/2 client watches the request's context only
		// between its writes: while its writer is stuck on the body (a
		// server that answered at once, then stopped reading), a Read of
		// the answer outlives the context until HTTP2WriteTimeout.
		// Closing the body ends that Read at once.
		p.pc.watchBody(resp.Body)
		defer p.pc.unwatchBody()
	}

	switch status := resp.StatusCode; {
	case status == http.StatusNotFound && sid != "":
		httpcore.Discard(resp.Body)
		c.expire()
		return
	case !httpcore.Success(status) && p.out.Modern.Set():
		c.modernRefusal(p, resp)
		return
	case !httpcore.Success(status):
		if p.out.Initialize && c.fallback && fallbackStatus(status) {
			httpcore.Discard(resp.Body)
			c.fallBack(p, status)
			return
		}
		c.requestFailed(p, httpcore.StatusFailure(resp, c.scrub.Load()))
		return
	}
	if p.out.Initialize && !c.captureSession(resp.Header) {
		httpcore.Discard(resp.Body)
		c.requestFailed(p, transport.RequestFailure{Status: resp.StatusCode, Reason: "the server's Mcp-Session-Id is not visible ASCII"})
		return
	}
	if len(p.pend) == 0 {
		// A notification or a response: 202 Accepted, nothing to read.
		httpcore.Discard(resp.Body)
		return
	}
	switch mt := httpcore.MediaType(resp.Header.Get("Content-Type")); mt {
	case "text/event-stream":
		c.readAnswerStream(p, resp)
	case "application/json":
		body, err := httpcore.ReadCapped(resp.Body, c.max, resp.ContentLength)
		switch {
		case err == nil:
			c.deliverInbound(body, p)
		case isTooLarge(err):
			c.requestFailed(p, transport.RequestFailure{Status: resp.StatusCode, Reason: fmt.Sprintf("the answer exceeds the %d-byte limit", c.max)})
		case p.ctx().Err() == nil:
			c.requestFailed(p, httpcore.ErrorFailure(err, c.scrub.Load()))
		}
	default:
		httpcore.Discard(resp.Body)
		reason := "HTTP " + resp.Status + " without an answer"
		if mt != "" {
			reason = fmt.Sprintf("HTTP %s with an answer of type %q", resp.Status, mt)
		}
		c.requestFailed(p, transport.RequestFailure{Status: resp.StatusCode, Reason: reason})
	}
}

// fallbackStatus lists the answers to the initialize POST that mark a
// server of the 2024-11-05 HTTP+SSE era (the specification's backwards
// compatibility rule).
func fallbackStatus(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

func isTooLarge(err error) bool {
	_, ok := err.(*transport.FrameTooLargeError)
	return ok
}

// finish settles a post whose goroutine is ending: its requests leave the
// in-flight set; one that is still unanswered (the server's answer did not
// hold its response) gets a synthesized error; a cancellation the post
// carried aborts the requests it names.
func (c *conn) finish(p *post) {
	var answers []messages.ID
	c.mu.Lock()
	if !c.closed {
		answers = c.failUnansweredLocked(p)
	}
	for i := range p.pend {
		c.inflight.forget(&p.pend[i])
	}
	var abort *post
	if id := p.out.Cancel; id.IsValid() {
		if pd := c.inflight.get(id); pd != nil && !pd.done {
			pd.abandoned = true
			pd.post.aborted = true
			abort = pd.post
		}
	}
	reusable := !c.closed && !p.aborted
	c.live.remove(p)
	c.mu.Unlock()
	p.releaseCtx(reusable)
	// The server has the cancellation: stop waiting for the answer (the
	// specification asks for the explicit notification first, so that the
	// closed stream is not read as a cancellation).
	if abort != nil {
		abort.cancel()
	}
	for _, id := range answers {
		c.sink.DeliverFailure(id, transport.RequestFailure{Reason: "the server's answer held no response to this request"})
	}
}

// requestFailed answers the post's unanswered requests with a synthesized
// CodeRequestFailed error; for a notification or response it only logs.
func (c *conn) requestFailed(p *post, f transport.RequestFailure) {
	if len(p.pend) == 0 {
		c.log.Warn("POST of a notification or response failed", slog.String("url", c.name), slog.String("reason", f.Reason))
		return
	}
	c.mu.Lock()
	answers := c.failUnansweredLocked(p)
	c.mu.Unlock()
	c.log.Debug("request failed", slog.String("url", c.name), slog.String("reason", f.Reason))
	for _, id := range answers {
		c.sink.DeliverFailure(id, f)
	}
}

// failUnansweredLocked settles the post's requests that still wait for an
// answer (not abandoned by the client) and returns their ids, for a
// synthesized CodeRequestFailed answer each once c.mu is released.
func (c *conn) failUnansweredLocked(p *post) []messages.ID {
	var answers []messages.ID
	for i := range p.pend {
		pd := &p.pend[i]
		if pd.done || pd.abandoned {
			continue
		}
		pd.done = true
		c.inflight.forget(pd)
		answers = append(answers, pd.id)
	}
	return answers
}

// answeredLocked reports whether every request of p has its answer; c.mu
// is held.
func answeredLocked(p *post) bool {
	for i := range p.pend {
		pd := &p.pend[i]
		if !pd.done {
			return false
		}
	}
	return true
}

// deliverInbound decodes a received frame, once, and hands it to the
// session (deliverDecoded).
func (c *conn) deliverInbound(frame []byte, p *post) (answered bool) {
	in := httpcore.GetInbound(frame, c.max)
	answered = c.deliverDecoded(in, p)
	httpcore.PutInbound(in)
	return answered
}

// deliverDecoded hands a received frame, decoded, to the session, unless
// it only repeats answers already delivered (a replayed stream) or answers
// requests this connection never sent or no longer waits for. p is the
// post whose answer stream carried the frame, nil for the GET stream. It
// reports whether every request of p is now answered (false for nil), as
// seen under the same lock, so that an answer stream costs one lock per
// event.
func (c *conn) deliverDecoded(in *transport.Inbound, p *post) (answered bool) {
	var ids [1]messages.ID
	env := httpcore.Inspect(in, ids[:0])
	c.mu.Lock()
	fresh := env.Others > 0 || len(env.Orphans) > 0
	for _, id := range env.Responses {
		pd := c.inflight.get(id)
		if n, ok := id.NumberInString(); ok && pd == nil {
			// Request n's answer with its id sent back as a string: a
			// broken answer the session fails n with (a protocol error),
			// not an unknown one to drop (issue 16.5).
			id = messages.NumberID(n)
			pd = c.inflight.get(id)
		}
		if pd == nil || pd.done {
			continue
		}
		pd.done = true
		c.inflight.delete(id)
		fresh = true
		if p != nil && p.out.Initialize && c.version == "" {
			if v := httpcore.ProtocolVersion(in.Messages, id); validVersion(v) {
				// Sent from now on: notifications/initialized may go out
				// before the session calls Negotiated.
				c.version = v
			}
		}
	}
	// An error without an id, on the answer stream of a single request,
	// can only be about that request: give it the request's id so that the
	// caller gets the server's error instead of waiting for a timeout.
	if p != nil && len(p.pend) == 1 && len(env.Orphans) == 1 && len(env.Responses) == 0 && env.Others == 0 && !p.pend[0].done {
		pd := &p.pend[0]
		pd.done = true
		c.inflight.delete(pd.id)
		// The orphan is the frame's one message: named in the decoded
		// message and in the frame, which stay alike.
		in.Messages[0].ID = pd.id
		in.Frame = messages.AppendError(nil, pd.id, env.Orphans[0])
	}
	answered = p != nil && answeredLocked(p)
	c.mu.Unlock()
	if !fresh {
		c.log.Debug("dropped a repeated or unknown answer", slog.String("url", c.name))
		return answered
	}
	c.sink.Deliver(in)
	return answered
}
