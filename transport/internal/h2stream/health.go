package h2stream

import (
	"errors"
	"time"
)

// ErrPingTimeout fails the streams of a connection that stayed silent
// after a PING: the server or the path to it died without a FIN.
var ErrPingTimeout = errors.New("mcpengine/h2stream: the server did not answer a PING")

// health watches a connection for silence without a goroutine: a timer
// (time.AfterFunc) checks when the read loop last read a frame; after
// PingAfter of silence it sends a PING, and PingTimeout later, still
// without a frame, it fails the connection. Its fields are touched only
// by the timer's callbacks, which never overlap (each arms the next).
type health struct {
	after, timeout time.Duration
	timer          *time.Timer
	pinged         bool // a PING is out, sent at pingedAt
	pingedAt       time.Time
}

// startHealth arms the connection's health timer, unless pings are off.
func (cc *clientConn) startHealth() {
	h := &cc.health
	h.after, h.timeout = cc.t.opts.PingAfter, cc.t.opts.PingTimeout
	if h.after <= 0 {
		return
	}
	cc.lastRead.Store(time.Now().UnixNano())
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.err == nil {
		// The callback runs on a goroutine of its own that exits once it
		// sent a PING or closed the connection; close stops the timer.
		h.timer = time.AfterFunc(h.after, cc.checkHealth)
	}
}

// checkHealth is the health timer's callback.
func (cc *clientConn) checkHealth() {
	h := &cc.health
	last := time.Unix(0, cc.lastRead.Load())
	if h.pinged && last.After(h.pingedAt) {
		h.pinged = false // a frame came after the PING: the server is there
	}
	idle := time.Since(last)
	next := h.after - idle
	switch {
	case h.pinged:
		cc.close(&ConnError{Err: ErrPingTimeout})
		return
	case idle >= h.after:
		h.pinged, h.pingedAt = true, time.Now()
		if cc.write(func() error { return cc.fr.WritePing(false, pingData) }) != nil {
			return
		}
		next = h.timeout
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.err == nil {
		h.timer.Reset(next)
	}
}

// pingData is the payload of our PINGs.
var pingData = [8]byte{'m', 'c', 'p', 'e', 'n', 'g', 'i', 'n'}

// stopHealth stops the timer; cc.mu is held.
func (cc *clientConn) stopHealthLocked() {
	if cc.health.timer != nil {
		cc.health.timer.Stop()
	}
}
