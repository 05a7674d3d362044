package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
	"github.com/mcpengine/mcpengine/transport/internal/sse"
)

// errAnswered ends consume once the post's requests are all answered.
var errAnswered = errors.New("answered")

// consume delivers the events of one HTTP response of a stream until the
// response ends (its error), or, for a post's stream, until every request
// of the post is answered (errAnswered). Events seen before (by id) and
// events without data (the priming event a server sends to hand out an id)
// are skipped.
func (c *conn) consume(rd *sse.Reader, seen *eventIDs, p *post) error {
	for {
		ev, err := rd.Next()
		if err != nil {
			return err
		}
		if ev.ID != "" && !seen.add(ev.ID) {
			continue
		}
		if len(ev.Data) == 0 || (ev.Type != "" && ev.Type != "message") {
			continue
		}
		if c.deliverInbound(ev.Data, p) {
			return errAnswered
		}
	}
}

// readAnswerStream reads the event stream a POST was answered with, and
// resumes it with GET and Last-Event-ID when it breaks before the answer.
// 2026-07-28 streams are not resumable: a 2026-07-28 request whose stream
// breaks fails alone.
func (c *conn) readAnswerStream(p *post, resp *http.Response) {
	body := resp.Body
	defer func() { _ = body.Close() }()
	rd := sse.NewReader(body, c.max)
	var seen eventIDs
	for {
		err := c.consume(rd, &seen, p)
		if err == errAnswered || p.ctx().Err() != nil {
			return
		}
		if sse.IsTooLarge(err) {
			c.requestFailed(p, transport.RequestFailure{Status: resp.StatusCode, Reason: fmt.Sprintf("an event of the answer stream exceeds the %d-byte limit", c.max)})
			return
		}
		lastID := rd.LastEventID()
		if lastID == "" || p.out.Modern.Set() {
			reason := "the answer stream ended before the response"
			if !errors.Is(err, io.EOF) {
				reason += ": " + httpcore.ErrorReason(err, c.scrub.Load())
			}
			c.requestFailed(p, transport.RequestFailure{Status: resp.StatusCode, Reason: reason})
			return
		}
		_ = body.Close()
		next, ok := c.resume(p, rd, lastID)
		if !ok {
			return
		}
		body = next
		rd.Reset(body)
	}
}

// resume reopens a post's answer stream after waiting the server's retry
// time, and backs off while the attempts fail. It returns the new body, or
// false when the post is settled (failed, expired, cancelled).
func (c *conn) resume(p *post, rd *sse.Reader, lastID string) (io.ReadCloser, bool) {
	for attempt := 0; ; attempt++ {
		if !sleep(p.ctx(), c.retryDelay(rd, attempt)) {
			return nil, false
		}
		resp, sid, err := c.send(p.ctx(), http.MethodGet, nil, lastID)
		if err != nil {
			if p.ctx().Err() != nil {
				return nil, false
			}
			if attempt+1 >= MaxResumeAttempts {
				f := httpcore.ErrorFailure(err, c.scrub.Load())
				f.Reason = "resuming the answer stream: " + f.Reason
				c.requestFailed(p, f)
				return nil, false
			}
			continue
		}
		switch status := resp.StatusCode; {
		case status == http.StatusNotFound && sid != "":
			httpcore.Discard(resp.Body)
			c.expire()
			return nil, false
		case status >= 500 && attempt+1 < MaxResumeAttempts:
			httpcore.Discard(resp.Body)
			continue
		case !httpcore.Success(status):
			f := httpcore.StatusFailure(resp, c.scrub.Load())
			_ = resp.Body.Close()
			f.Reason = "resuming the answer stream: " + f.Reason
			c.requestFailed(p, f)
			return nil, false
		case httpcore.MediaType(resp.Header.Get("Content-Type")) != "text/event-stream":
			httpcore.Discard(resp.Body)
			c.requestFailed(p, transport.RequestFailure{Status: status, Reason: "resuming the answer stream: the server did not answer with an event stream"})
			return nil, false
		}
		c.log.Debug("resumed an answer stream", slog.String("url", c.name))
		return resp.Body, true
	}
}

// retryDelay is the wait before attempt number attempt (0 for the first)
// to reopen a stream: the server's retry time, or ReconnectDelay, doubled
// for every failed attempt up to MaxReconnectDelay, and never shorter than
// what the server asked for.
func (c *conn) retryDelay(rd *sse.Reader, attempt int) time.Duration {
	base, set := rd.Retry()
	if !set {
		base = c.reconnect
	}
	d := base
	for i := 0; i < attempt && d < MaxReconnectDelay; i++ {
		d *= 2
	}
	d = min(d, MaxReconnectDelay)
	if set && d < base {
		d = base // the server's retry time is a floor, whatever the cap
	}
	return d
}

// sleep waits d, or until ctx is done (then it reports false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// rememberedIDs bounds how many event ids one stream remembers to
// recognize replays.
const rememberedIDs = 256

// eventIDs is the set of the last event ids seen on one logical stream.
// Up to scanIDs ids it is only the ring, searched in order: a stream that
// saw a few ids (a GET stream's priming event) keeps no map.
type eventIDs struct {
	ring []string
	next int
	set  map[string]struct{} // once the ring holds more than scanIDs
}

// scanIDs is how many ids are searched in the ring before a map is built.
const scanIDs = 8

// seenAny reports whether any id was recorded.
func (s *eventIDs) seenAny() bool { return len(s.ring) > 0 }

// add records id and reports whether it is new.
func (s *eventIDs) add(id string) bool {
	if s.set != nil {
		if _, dup := s.set[id]; dup {
			return false
		}
	} else {
		for _, seen := range s.ring {
			if seen == id {
				return false
			}
		}
	}
	if len(s.ring) < rememberedIDs {
		s.ring = append(s.ring, id)
	} else {
		if s.set != nil {
			delete(s.set, s.ring[s.next])
		}
		s.ring[s.next] = id
		s.next = (s.next + 1) % rememberedIDs
	}
	switch {
	case s.set != nil:
		s.set[id] = struct{}{}
	case len(s.ring) > scanIDs:
		s.set = make(map[string]struct{}, len(s.ring))
		for _, seen := range s.ring {
			s.set[seen] = struct{}{}
		}
	}
	return true
}
