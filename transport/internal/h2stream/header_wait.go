package h2stream

import (
	"time"
)

// ErrResponseHeaderTimeout fails a stream whose response headers did not
// arrive within Options.ResponseHeaderTimeout of its request being sent.
var ErrResponseHeaderTimeout error = headerTimeoutError{}

type headerTimeoutError struct{}

func (headerTimeoutError) Error() string {
	return "mcpengine/h2stream: timeout awaiting response headers"
}

// Timeout and Temporary make it a net.Error that is a timeout, as
// net/http's own header timeout is.
func (headerTimeoutError) Timeout() bool   { return true }
func (headerTimeoutError) Temporary() bool { return true }

// clockStart is the origin of the monotonic instants streams keep.
var clockStart = time.Now()

// monoNow is the monotonic time since clockStart.
func monoNow() time.Duration { return time.Since(clockStart) }

// headerWaits are a connection's streams that sent their request and
// wait for the response headers, oldest first. They share one timeout, so
// they expire in the order they were sent, and one timer per connection
// serves them all instead of one per request. Guarded by clientConn.mu.
type headerWaits struct {
	streamList
	timer *time.Timer // runs cc.expireHeaderWaits; made on first use
	armed bool        // the timer will fire for head
}

// awaitHeadersBy starts s's response-header timeout, unless there is
// none or the headers (or the stream's end) came already.
func (cc *clientConn) awaitHeadersBy(s *stream) {
	d := cc.t.opts.ResponseHeaderTimeout
	if d <= 0 {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.err != nil || cc.streams[s.id] != s {
		return
	}
	s.mu.Lock()
	got := s.gotHeaders
	s.mu.Unlock()
	if got {
		return
	}
	s.headerDeadline = monoNow() + d
	w := &cc.headerWaits
	unlist(s)
	w.push(s)
	switch {
	case w.armed:
	case w.timer == nil:
		w.timer, w.armed = time.AfterFunc(d, cc.expireHeaderWaits), true
	default:
		w.timer.Reset(d)
		w.armed = true
	}
}

// headersCame takes s off the header waits once its headers arrived.
func (cc *clientConn) headersCame(s *stream) {
	cc.mu.Lock()
	if s.list == &cc.headerWaits.streamList {
		unlist(s)
	}
	cc.mu.Unlock()
}

// expireHeaderWaits is the timer's callback: it fails the streams whose
// headers are late and arms the timer for the next one.
func (cc *clientConn) expireHeaderWaits() {
	now := monoNow()
	var late []*stream
	cc.mu.Lock()
	w := &cc.headerWaits
	for w.head != nil && w.head.headerDeadline <= now {
		s := w.head
		unlist(s)
		late = append(late, s)
	}
	w.armed = w.head != nil && cc.err == nil
	if w.armed {
		w.timer.Reset(w.head.headerDeadline - now)
	}
	cc.mu.Unlock()
	for _, s := range late {
		s.failUnlessAnswered(ErrResponseHeaderTimeout)
	}
}

// stopHeaderWaitsLocked stops the timer of a connection that ends; the
// caller holds cc.mu.
func (cc *clientConn) stopHeaderWaitsLocked() {
	if cc.headerWaits.timer != nil {
		cc.headerWaits.timer.Stop()
	}
	cc.headerWaits.armed = false
}
