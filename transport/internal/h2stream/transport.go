package h2stream

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
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
	// DefaultMaxStreamsPerConn is Options.MaxStreamsPerConn's default.
	DefaultMaxStreamsPerConn = 1000
	// DefaultPingTimeout is Options.PingTimeout's default.
	DefaultPingTimeout = 15 * time.Second
	// writeTimeout bounds one write to the connection: a server that
	// stops reading fails the connection instead of blocking its writers.
	writeTimeout = 10 * time.Second
	// connWindow is the connection's receive window. The read loop gives
	// it back as soon as it buffered the data (streams are bounded by
	// their own windows), so it only needs to be large.
	connWindow = 1 << 30
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
	// MaxStreamsPerConn caps the streams one connection carries at once,
	// below the server's MAX_CONCURRENT_STREAMS; zero means
	// DefaultMaxStreamsPerConn.
	MaxStreamsPerConn int
	// IdleTimeout is how long a connection stays open after its last
	// stream ended, for the next request; zero closes it at once, and a
	// negative value keeps it until CloseIdleConnections.
	IdleTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for a response's headers
	// once its request was sent; zero means no bound.
	ResponseHeaderTimeout time.Duration
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
	origins map[originKey]*origin
	closed  bool
	loops   sync.WaitGroup // the connections' read loops
	dials   atomic.Int32   // connections dialed (Dials)

	// connWindow is the connections' receive window (the constant; tests
	// make it small to show that it is given back).
	connWindow uint32
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
	if o.MaxStreamsPerConn <= 0 {
		o.MaxStreamsPerConn = DefaultMaxStreamsPerConn
	}
	if o.DialContext == nil {
		o.DialContext = (&net.Dialer{}).DialContext
	}
	return &Transport{opts: o, origins: map[originKey]*origin{}, connWindow: connWindow}
}

// RoundTrip sends req on a stream of a connection to its origin and
// returns once the response headers arrived; the response's body is fed
// by the connection's read loop. A request the server refused without
// processing it (REFUSED_STREAM, or above a GOAWAY's last stream) goes
// again on another connection, its body read again through GetBody.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	hadBody := body.buf != nil
	o := fromRequest(req)
	resp, err := t.do(&o, nil, &body, func(cause error) (requestBody, error) { return resendBody(req, hadBody, cause) })
	if err == ErrNotH2 {
		if t.opts.Fallback == nil {
			body.release()
			return nil, err
		}
		return t.fallback(req, body)
	}
	return resp, err
}

// Post sends a POST of body to u with the header fields (the method,
// scheme, authority and path come from u), as RoundTrip sends a request
// but without an http.Request and its header map: the call path's
// requests when nothing wraps the transport (httpx). The response's
// Request is nil. body must not change until Post returns. An https
// origin whose server did not choose h2 fails with ErrNotH2: send it
// through the fallback transport instead.
func (t *Transport) Post(ctx context.Context, u *url.URL, fields []Field, body []byte) (*http.Response, error) {
	o := outgoing{ctx: ctx, method: http.MethodPost, url: u, host: u.Host}
	rb := requestBody{b: body}
	return t.do(&o, fields, &rb, func(error) (requestBody, error) { return requestBody{b: body}, nil })
}

// do sends o, fields and *body on a stream of a connection to its origin;
// resend gives the body again for a request the server refused
// unprocessed. The body is released once sent; with ErrNotH2 (the origin
// does not speak h2) it is left in *body, unsent, for the fallback.
func (t *Transport) do(o *outgoing, fields []Field, body *requestBody, resend func(cause error) (requestBody, error)) (*http.Response, error) {
	key, err := originOf(o.url)
	if err != nil {
		body.release()
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		cc, fallback, err := t.connFor(o.ctx, key, o.url)
		if fallback {
			return nil, ErrNotH2
		}
		if err != nil {
			body.release()
			return nil, err
		}
		resp, err := cc.roundTrip(o, fields, *body) // releases the body once sent
		*body = requestBody{}
		if err == nil || !retryable(err) || attempt >= 2 || o.ctx.Err() != nil {
			return resp, err
		}
		if *body, err = resend(err); err != nil {
			return nil, err
		}
	}
}

// fallback sends req through Options.Fallback, its body restored.
func (t *Transport) fallback(req *http.Request, body requestBody) (*http.Response, error) {
	defer body.release()
	r := req.Clone(req.Context())
	setBody(r, body)
	return t.opts.Fallback.RoundTrip(r)
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

// Dials returns how many connections the transport dialed: whether
// requests shared connections, for tests and diagnostics.
func (t *Transport) Dials() int { return int(t.dials.Load()) }

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
