package httpx

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Defaults for zero ClientOptions fields.
const (
	// DefaultMaxIdleConns and DefaultMaxIdleConnsPerHost are high enough
	// never to bind in practice: the idle pool then holds as many
	// connections as were in use at once (the concurrency actually used),
	// so a burst of N requests over HTTP/1.1 reuses N connections instead
	// of closing all but a fixed few after each request (every closed one
	// a socket in TIME_WAIT); IdleConnTimeout trims the pool when the
	// burst is over.
	DefaultMaxIdleConns        = 1 << 20
	DefaultMaxIdleConnsPerHost = 1 << 20
	// DefaultIdleConnTimeout is short enough that an engine whose
	// sessions went idle soon holds no connection (an idle session costs
	// no descriptor), long enough that steady traffic never re-dials.
	DefaultIdleConnTimeout       = 30 * time.Second
	DefaultDialTimeout           = 10 * time.Second
	DefaultKeepAlive             = 30 * time.Second
	DefaultTLSHandshakeTimeout   = 10 * time.Second
	DefaultResponseHeaderTimeout = 5 * time.Minute
	// DefaultHTTP2PingAfter is how long an HTTP/2 connection may stay
	// silent before the client pings it: a long event stream over a
	// connection that died without a FIN is noticed within about this time
	// plus the ping timeout, instead of hanging until the session's calls
	// time out.
	DefaultHTTP2PingAfter = 30 * time.Second
	// DefaultHTTP2PingTimeout is how long an HTTP/2 health-check ping may
	// go unanswered before the connection is closed and every stream on
	// it fails.
	DefaultHTTP2PingTimeout = 15 * time.Second
	// DefaultHTTP2StreamWindow is each HTTP/2 stream's receive window:
	// what a server may make the client buffer on one stream before it is
	// read (net/http's default is 4 MiB; an engine keeps thousands of
	// listening streams open, each read by its listener as events come).
	DefaultHTTP2StreamWindow = 256 << 10
	// DefaultHTTP2WriteTimeout closes an HTTP/2 connection whose server
	// has stopped reading: no byte could be written for this long. Every
	// stream on it then fails, instead of waiting behind a write that
	// never ends.
	DefaultHTTP2WriteTimeout = 30 * time.Second
)

// ClientOptions tunes NewClient. The zero value is a good default for an
// engine with many sessions.
type ClientOptions struct {
	// MaxIdleConns caps idle keep-alive connections over all hosts; zero
	// means DefaultMaxIdleConns.
	MaxIdleConns int
	// MaxIdleConnsPerHost caps idle keep-alive connections to one host;
	// zero means DefaultMaxIdleConnsPerHost (no practical cap). With
	// HTTP/1.1 every request in flight holds a connection, so a cap below
	// the number of concurrent requests to one server churns connections.
	MaxIdleConnsPerHost int
	// MaxConnsPerHost caps the connections to one host that carry calls;
	// zero means DefaultMaxConnsPerHost, negative means no cap. Requests
	// beyond it wait for a connection to come free (within their own
	// deadline) instead of dialing. Standing streams (GET event streams,
	// WebSocket upgrades, subscriptions/listen) are not counted: over
	// HTTP/1.1 each holds a connection for its whole life, and inside the
	// cap they would leave calls none. With HTTP2PriorKnowledge the cap
	// applies to every request (HTTP/2 multiplexes them: one connection
	// carries them all) and it has no default.
	MaxConnsPerHost int
	// IdleConnTimeout closes keep-alive connections idle this long; zero
	// means DefaultIdleConnTimeout.
	IdleConnTimeout time.Duration

	// DialTimeout bounds establishing a TCP connection; zero means
	// DefaultDialTimeout.
	DialTimeout time.Duration
	// KeepAlive is the TCP keep-alive period; zero means DefaultKeepAlive,
	// negative disables keep-alives.
	KeepAlive time.Duration
	// TLSHandshakeTimeout bounds the TLS handshake; zero means
	// DefaultTLSHandshakeTimeout.
	TLSHandshakeTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for the response headers after
	// the request was sent; zero means DefaultResponseHeaderTimeout,
	// negative means no bound. A server that answers a request with a plain
	// JSON body sends its headers only once the result is ready, so this
	// also caps how long such a call may run; raise it for servers with
	// long-running tools that do not stream.
	ResponseHeaderTimeout time.Duration
	// HTTP2PingAfter is how long an HTTP/2 connection may be silent before
	// a health-check ping; zero means DefaultHTTP2PingAfter, negative
	// disables the pings.
	HTTP2PingAfter time.Duration
	// HTTP2PingTimeout is how long a health-check ping may go unanswered
	// before the connection closes; zero means DefaultHTTP2PingTimeout.
	HTTP2PingTimeout time.Duration
	// HTTP2WriteTimeout closes an HTTP/2 connection to which nothing could
	// be written for this long (a server that stopped reading); zero means
	// DefaultHTTP2WriteTimeout, negative means no bound.
	HTTP2WriteTimeout time.Duration
	// HTTP2StreamWindow is an HTTP/2 stream's receive window; zero means
	// DefaultHTTP2StreamWindow.
	HTTP2StreamWindow int
	// HTTP2ConnWindow is an HTTP/2 connection's receive window; zero
	// means net/http's default (1 GiB: the streams' windows bound what is
	// buffered, and a stream nobody reads then never stalls the others).
	HTTP2ConnWindow int
	// HTTP2StrictMaxStreams makes requests beyond a server's
	// MAX_CONCURRENT_STREAMS wait for a stream to end instead of opening
	// another connection to it.
	HTTP2StrictMaxStreams bool

	// HTTP2PriorKnowledge speaks HTTP/2 without TLS (h2c) from the first
	// byte to http:// URLs, for servers known to accept it: all sessions'
	// requests and streams then share one connection. https URLs use
	// HTTP/2 whenever the server offers it through ALPN, with or without
	// this. With it set, a server that speaks only HTTP/1.1 over plain
	// TCP cannot be reached.
	HTTP2PriorKnowledge bool

	// DialGate, when set, spaces dials out while the process is out of
	// descriptors (see DialGate); share one between all of an engine's
	// clients.
	DialGate *DialGate

	// TLS is the TLS configuration for https URLs (build one with
	// TLSOptions.Config); nil means the system roots and Go's defaults. It
	// is cloned.
	TLS *tls.Config

	// Proxy selects a proxy per request; nil means http.ProxyFromEnvironment
	// (HTTPS_PROXY, NO_PROXY, ...). Use NoProxy to connect directly.
	Proxy func(*http.Request) (*url.URL, error)
}

// NoProxy is a ClientOptions.Proxy that never uses a proxy.
func NoProxy(*http.Request) (*url.URL, error) { return nil, nil }

// NewClient returns an *http.Client tuned for many long-lived MCP sessions:
// a large keep-alive pool, HTTP/2 whenever the server offers it (also with
// a custom TLS configuration), bounded dial, handshake and response-header
// waits, HTTP/2 health-check pings and write timeout, and no overall
// timeout. HTTP/2 is net/http's own client: it validates what a server
// announces (SETTINGS, GOAWAY, RST_STREAM, header list sizes) and is
// maintained, fuzzed and patched by the Go team.
func NewClient(o ClientOptions) *http.Client {
	dialer := &net.Dialer{
		Timeout:   orDefault(o.DialTimeout, DefaultDialTimeout),
		KeepAlive: orDefault(o.KeepAlive, DefaultKeepAlive),
	}
	proxy := o.Proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	dial := dialer.DialContext
	if o.DialGate != nil {
		dial = o.DialGate.Wrap(dial)
	}
	st := &poolStats{max: max(o.MaxConnsPerHost, 0)}
	if !o.HTTP2PriorKnowledge {
		st.max = capOf(o.MaxConnsPerHost)
	}
	dial = st.countDials(dial)
	t := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dial,
		ForceAttemptHTTP2:     true, // with a custom TLS config or dialer, HTTP/2 is off unless forced
		MaxIdleConns:          orDefault(o.MaxIdleConns, DefaultMaxIdleConns),
		MaxIdleConnsPerHost:   orDefault(o.MaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost),
		MaxConnsPerHost:       st.max,
		IdleConnTimeout:       orDefault(o.IdleConnTimeout, DefaultIdleConnTimeout),
		TLSHandshakeTimeout:   orDefault(o.TLSHandshakeTimeout, DefaultTLSHandshakeTimeout),
		ResponseHeaderTimeout: orNone(o.ResponseHeaderTimeout, DefaultResponseHeaderTimeout),
		ExpectContinueTimeout: time.Second,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout:               orNone(o.HTTP2PingAfter, DefaultHTTP2PingAfter),
			PingTimeout:                   orDefault(o.HTTP2PingTimeout, DefaultHTTP2PingTimeout),
			WriteByteTimeout:              orNone(o.HTTP2WriteTimeout, DefaultHTTP2WriteTimeout),
			MaxReceiveBufferPerStream:     orDefault(o.HTTP2StreamWindow, DefaultHTTP2StreamWindow),
			MaxReceiveBufferPerConnection: max(o.HTTP2ConnWindow, 0),
			StrictMaxConcurrentRequests:   o.HTTP2StrictMaxStreams,
		},
	}
	if o.TLS != nil {
		t.TLSClientConfig = o.TLS.Clone()
	}
	if o.HTTP2PriorKnowledge {
		// Without HTTP1 in the set, net/http sends http:// requests as
		// prior-knowledge h2c; HTTP2 keeps https working through ALPN.
		var p http.Protocols
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
		t.Protocols = &p
		// A server that cannot carry h2c fails the request at once with
		// an *H2CRefusedError naming why (h2c_refused.go).
		v := &h2cVerdicts{}
		t.DialContext = v.dial(t.DialContext)
		return &http.Client{Transport: &h2cTransport{Transport: t, v: v, st: st}}
	}
	p := &pooledTransport{calls: t, streams: t, st: st}
	if st.max > 0 {
		p.streams = t.Clone()
		p.streams.MaxConnsPerHost = 0
	}
	return &http.Client{Transport: p}
}

// capOf maps ClientOptions.MaxConnsPerHost to net/http's: zero is the
// default cap, negative none.
func capOf(n int) int {
	switch {
	case n == 0:
		return DefaultMaxConnsPerHost
	case n < 0:
		return 0
	}
	return n
}

var (
	defaultOnce   sync.Once
	defaultClient *http.Client
)

// DefaultClient returns the package's shared client, NewClient with zero
// options, built on first use. Transports use it when their configuration
// names no client.
func DefaultClient() *http.Client {
	defaultOnce.Do(func() { defaultClient = NewClient(ClientOptions{}) })
	return defaultClient
}

// orDefault maps zero to def; negative values stay (they mean "off" where
// the field allows it).
func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// orNone maps zero to def and negative to zero (which net/http reads as
// "no bound").
func orNone(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
