package httpx

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/transport/internal/h2stream"
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
	// MaxConnsPerHost caps all connections to one host; zero means no cap.
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

	// HTTP2OverNetHTTP sends HTTP/2 requests through net/http's HTTP/2
	// client. By default they go over HTTP/2 connections of the client's
	// own (one goroutine per connection, none per request or open stream)
	// whenever HTTP/2 applies: https whose server chooses h2, or http with
	// HTTP2PriorKnowledge; through a proxy they always go through
	// net/http.
	HTTP2OverNetHTTP bool
}

// NoProxy is a ClientOptions.Proxy that never uses a proxy.
func NoProxy(*http.Request) (*url.URL, error) { return nil, nil }

// NewClient returns an *http.Client tuned for many long-lived MCP sessions:
// a large keep-alive pool, HTTP/2 whenever the server offers it (also with
// a custom TLS configuration), bounded dial, handshake and response-header
// waits, HTTP/2 health-check pings, and no overall timeout.
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
	t := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dial,
		ForceAttemptHTTP2:     true, // with a custom TLS config or dialer, HTTP/2 is off unless forced
		MaxIdleConns:          orDefault(o.MaxIdleConns, DefaultMaxIdleConns),
		MaxIdleConnsPerHost:   orDefault(o.MaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost),
		MaxConnsPerHost:       max(o.MaxConnsPerHost, 0),
		IdleConnTimeout:       orDefault(o.IdleConnTimeout, DefaultIdleConnTimeout),
		TLSHandshakeTimeout:   orDefault(o.TLSHandshakeTimeout, DefaultTLSHandshakeTimeout),
		ResponseHeaderTimeout: orNone(o.ResponseHeaderTimeout, DefaultResponseHeaderTimeout),
		ExpectContinueTimeout: time.Second,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout: orNone(o.HTTP2PingAfter, DefaultHTTP2PingAfter),
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
	}
	if o.HTTP2OverNetHTTP {
		return &http.Client{Transport: t}
	}
	streams := h2stream.New(h2stream.Options{
		DialContext:           dial,
		TLS:                   t.TLSClientConfig,
		HandshakeTimeout:      t.TLSHandshakeTimeout,
		PingAfter:             orNone(o.HTTP2PingAfter, DefaultHTTP2PingAfter),
		IdleTimeout:           t.IdleConnTimeout,
		ResponseHeaderTimeout: t.ResponseHeaderTimeout,
		Fallback:              t,
	})
	return &http.Client{Transport: &streamRouter{base: t, streams: streams, h2c: o.HTTP2PriorKnowledge, proxy: proxy}}
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
