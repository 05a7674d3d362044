package h2stream

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

// Defaults for zero Options fields.
const (
	// DefaultStreamWindow is each stream's receive window: what a stream
	// whose body nobody reads may buffer before the server must wait.
	DefaultStreamWindow = 256 << 10
	// DefaultHandshakeTimeout bounds the dial, the TLS handshake and the
	// server's first SETTINGS when the request's context has no sooner
	// deadline.
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultPingTimeout is Options.PingTimeout's default.
	DefaultPingTimeout = 15 * time.Second
	// writeTimeout bounds one write to the connection: a server that
	// stops reading fails the connection instead of blocking its writers.
	writeTimeout = 10 * time.Second
	// connWindow is the connection's receive window. The read loop gives
	// it back as soon as it buffered the data (streams are bounded by
	// their own windows), so it only needs to be large.
	connWindow = 1 << 30
	// maxRequestBody caps the request body this client sends.
	maxRequestBody = 64 << 10
	// maxHeaderListSize is announced to the server and bounds a
	// response's decoded header list.
	maxHeaderListSize = 1 << 20
)

// Options configures a Transport.
type Options struct {
	// DialContext opens TCP connections (the net/http transport's, with
	// the engine's DialGate); nil means a net.Dialer.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLS is the TLS configuration of https origins; it is cloned and
	// asks for h2 (ALPN).
	TLS *tls.Config
	// HandshakeTimeout bounds the dial, TLS handshake and first SETTINGS;
	// zero means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// StreamWindow is each stream's receive window; zero means
	// DefaultStreamWindow.
	StreamWindow uint32
	// PingAfter is how long a connection may be silent before a PING
	// checks that the server is still there; zero means no pings.
	PingAfter time.Duration
	// PingTimeout is how long the server has to answer it (any frame
	// will do) before the connection fails; zero means
	// DefaultPingTimeout.
	PingTimeout time.Duration
	// Fallback serves the requests of an https origin whose server does
	// not choose h2; nil means such requests fail with an error.
	Fallback http.RoundTripper
}

// Transport is an http.RoundTripper that sends requests over HTTP/2
// connections of its own, one read-loop goroutine per connection: http://
// URLs as prior-knowledge h2c, https:// with ALPN h2. It is meant for
// requests whose answer streams for a long time.
type Transport struct {
	opts Options

	mu      sync.Mutex
	origins map[string]*origin
	closed  bool
	loops   sync.WaitGroup // the connections' read loops
	dials   atomic.Int32   // connections dialed, for tests

	// connWindow is the connections' receive window (the constant; tests
	// make it small to show that it is given back).
	connWindow uint32
}

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

// New returns a Transport.
func New(o Options) *Transport {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = DefaultPingTimeout
	}
	if o.StreamWindow == 0 {
		o.StreamWindow = DefaultStreamWindow
	}
	if o.DialContext == nil {
		o.DialContext = (&net.Dialer{}).DialContext
	}
	return &Transport{opts: o, origins: map[string]*origin{}, connWindow: connWindow}
}

// RoundTrip sends req on a stream of a connection to its origin and
// returns once the response headers arrived; the response's body is fed
// by the connection's read loop. A request the server refused without
// processing it (REFUSED_STREAM, or above a GOAWAY's last stream) goes
// again on another connection.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	key, err := originKey(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		cc, fallback, err := t.connFor(ctx, key, req)
		if fallback {
			return t.fallback(req, body)
		}
		if err != nil {
			return nil, err
		}
		resp, err := cc.roundTrip(req, body)
		if err != nil && retryable(err) && attempt < 2 && ctx.Err() == nil {
			continue
		}
		return resp, err
	}
}

// fallback sends req through Options.Fallback, its body restored.
func (t *Transport) fallback(req *http.Request, body []byte) (*http.Response, error) {
	if t.opts.Fallback == nil {
		return nil, errNotH2
	}
	r := req.Clone(req.Context())
	setBody(r, body)
	return t.opts.Fallback.RoundTrip(r)
}

// connFor returns a connection of key's origin with room for one more
// stream, the stream's slot taken, dialing one when none has room. It
// reports fallback when the origin does not speak h2.
func (t *Transport) connFor(ctx context.Context, key string, req *http.Request) (cc *clientConn, fallback bool, err error) {
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

		c, err := t.dial(ctx, key, req)

		t.mu.Lock()
		o.dial = nil
		switch {
		case err == errNotH2:
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
		case err == errNotH2:
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

// release gives back cc's stream slot; a connection left without streams
// is closed and leaves the pool (no descriptor held while nothing
// streams), as does one that can take no more (going away, broken) once
// its last stream ended.
func (t *Transport) release(cc *clientConn) {
	t.mu.Lock()
	cc.open--
	idle := cc.open == 0
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
	t.mu.Unlock()
}

// CloseIdleConnections closes the connections that carry no stream (there
// are none for long: one closes when its last stream ends) and, when no
// connection is left, waits for every read loop to exit.
func (t *Transport) CloseIdleConnections() {
	var idle []*clientConn
	t.mu.Lock()
	busy := false
	for _, o := range t.origins {
		for _, c := range o.conns {
			if c.open == 0 {
				idle = append(idle, c)
			} else {
				busy = true
			}
		}
	}
	for _, c := range idle {
		t.dropLocked(c)
	}
	t.mu.Unlock()
	for _, c := range idle {
		c.close(errIdle)
	}
	if !busy {
		t.loops.Wait()
	}
}

// Close fails every stream with ErrClosed, closes every connection,
// refuses new requests, and waits for the read loops to exit.
func (t *Transport) Close() {
	var all []*clientConn
	t.mu.Lock()
	t.closed = true
	for key, o := range t.origins {
		all = append(all, o.conns...)
		o.conns = nil
		delete(t.origins, key)
	}
	t.mu.Unlock()
	for _, c := range all {
		c.close(ErrClosed)
	}
	t.loops.Wait()
}

// openConns returns how many connections are in the pool, for tests.
func (t *Transport) openConns() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, o := range t.origins {
		n += len(o.conns)
	}
	return n
}
