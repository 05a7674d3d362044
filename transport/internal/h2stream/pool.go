package h2stream

import (
	"context"
	"net/url"
	"time"

	"golang.org/x/net/http2"
)

// origin is the pool of one scheme://host:port. Guarded by Transport.mu.
type origin struct {
	conns []*clientConn
	dial  *dialCall // the dial under way, if any
	noH2  bool      // TLS did not negotiate h2: use Fallback
}

// dialCall is a dial that RoundTrips of the same origin wait for.
type dialCall struct {
	done chan struct{}
	err  error
}

// connFor returns a connection of key's origin with room for one more
// stream, the stream's slot taken, dialing one when none has room. It
// reports fallback when the origin does not speak h2.
func (t *Transport) connFor(ctx context.Context, key originKey, u *url.URL) (cc *clientConn, fallback bool, err error) {
	for {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return nil, false, ErrClosed
		}
		o := t.origins[key]
		if o == nil {
			o = &origin{}
			t.origins[key] = o
		}
		if o.noH2 {
			t.mu.Unlock()
			return nil, true, nil
		}
		for _, c := range o.conns {
			if c.reserveLocked() {
				t.mu.Unlock()
				return c, false, nil
			}
		}
		if call := o.dial; call != nil {
			t.mu.Unlock()
			select {
			case <-call.done:
				if call.err != nil && (ctx.Err() != nil || !isContextError(call.err)) {
					return nil, false, call.err
				}
				continue // dialed, or the dialing request gave up: try again
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		}
		call := &dialCall{done: make(chan struct{})}
		o.dial = call
		t.mu.Unlock()

		c, err := t.dial(ctx, key, u)

		t.mu.Lock()
		o.dial = nil
		switch {
		case err == ErrNotH2:
			o.noH2 = true
		case err != nil:
			call.err = err
		case t.closed:
			err = ErrClosed
		case c.maxStreams.Load() == 0:
			err = &ProtocolError{Code: http2.ErrCodeRefusedStream, Reason: "the server allows no concurrent stream"}
			call.err = err
		default:
			t.dials.Add(1)
			o.conns = append(o.conns, c)
			c.reserveLocked() // the dialer's own stream: waiters take the rest
		}
		t.mu.Unlock()
		close(call.done)
		switch {
		case err == ErrNotH2:
			return nil, true, nil
		case err != nil:
			if c != nil {
				c.close(ErrClosed)
			}
			return nil, false, err
		}
		return c, false, nil
	}
}

// release gives back cc's stream slot. A connection left without
// streams stays in the pool for the next request until IdleTimeout passed
// (with a zero IdleTimeout it closes at once); one that can take no more
// (going away, broken) closes once its last stream ended. Either way an
// engine that stopped sending holds no descriptor here for long.
func (t *Transport) release(cc *clientConn) {
	t.mu.Lock()
	cc.open--
	idle := cc.open == 0
	closeNow := idle && (t.opts.IdleTimeout == 0 || cc.full)
	switch {
	case closeNow:
		t.dropLocked(cc)
	case idle && t.opts.IdleTimeout > 0:
		cc.idleSince = time.Now()
		if cc.idleTimer == nil {
			cc.idleTimer = time.AfterFunc(t.opts.IdleTimeout, func() { t.closeIfIdle(cc) })
		} else {
			cc.idleTimer.Reset(t.opts.IdleTimeout)
		}
	}
	t.mu.Unlock()
	if closeNow {
		cc.close(errIdle)
	}
}

// closeIfIdle is cc's idle timer: it closes cc if no stream used it for
// IdleTimeout. A stream that came and went meanwhile re-armed the timer.
func (t *Transport) closeIfIdle(cc *clientConn) {
	t.mu.Lock()
	idle := cc.open == 0 && !cc.full && time.Since(cc.idleSince) >= t.opts.IdleTimeout
	if idle {
		t.dropLocked(cc)
	}
	t.mu.Unlock()
	if idle {
		cc.close(errIdle)
	}
}

// dropLocked removes cc from its origin's pool.
func (t *Transport) dropLocked(cc *clientConn) {
	o := t.origins[cc.origin]
	if o == nil {
		return
	}
	for i, c := range o.conns {
		if c == cc {
			o.conns = append(o.conns[:i], o.conns[i+1:]...)
			break
		}
	}
	if len(o.conns) == 0 && o.dial == nil && !o.noH2 {
		delete(t.origins, cc.origin)
	}
}

// unusable takes cc out of the pool for new streams (GOAWAY, a broken
// connection); its open streams go on (GOAWAY) or fail (broken).
func (t *Transport) unusable(cc *clientConn) {
	t.mu.Lock()
	cc.full = true
	t.dropLocked(cc)
	if cc.idleTimer != nil {
		cc.idleTimer.Stop()
	}
	t.mu.Unlock()
}
