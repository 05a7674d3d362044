package httpx

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
)

// DefaultMaxConnsPerHost caps the HTTP/1.1 connections a client opens to
// one server when ClientOptions.MaxConnsPerHost is zero. Over HTTP/1.1
// every request in flight holds a connection of its own, so without a cap
// 10,000 sessions with a call in flight each open 10,000 sockets (and the
// server as many): past the descriptor limit calls fail. With the cap,
// requests beyond it wait in net/http's queue (Transport.MaxConnsPerHost)
// for a connection to come free, each within its own deadline. 512 keeps
// a loopback or LAN server busy with room to spare (a connection carries
// thousands of short calls a second) and stays far below common
// descriptor limits; a server with many slow calls in flight wants more
// (ServerConfig.MaxConnections).
const DefaultMaxConnsPerHost = 512

// PoolStats is a snapshot of one client's connection counters (StatsOf).
// Each counter is read on its own.
type PoolStats struct {
	// MaxConnsPerHost is the cap on connections to one server that carry
	// calls; 0 means none.
	MaxConnsPerHost int
	// Conns is the number of connections open now, standing streams'
	// included.
	Conns int64
	// Dials counts the connections made over the client's life.
	Dials uint64
	// Waited counts the HTTP/1.1 requests that started while the cap's
	// connections were all taken by other requests, and so waited for one
	// to come free instead of dialing.
	Waited uint64
	// Waiting is the number of HTTP/1.1 requests waiting for a connection
	// now: those in flight beyond the cap (0 once the server answered over
	// HTTP/2).
	Waiting int64
}

// poolStats are a client's counters, shared by its transports.
type poolStats struct {
	max      int
	conns    atomic.Int64
	dials    atomic.Uint64
	inFlight atomic.Int64 // capped requests from RoundTrip until their body closes
	waited   atomic.Uint64
	h2       atomic.Bool // an answer came over HTTP/2: requests share connections, none waits
}

func (s *poolStats) snapshot() PoolStats {
	p := PoolStats{MaxConnsPerHost: s.max, Conns: s.conns.Load(), Dials: s.dials.Load(), Waited: s.waited.Load()}
	if s.max > 0 && !s.h2.Load() {
		p.Waiting = max(0, s.inFlight.Load()-int64(s.max))
	}
	return p
}

// StatsOf returns the counters of a client NewClient built, or false for
// any other client.
func StatsOf(c *http.Client) (PoolStats, bool) {
	if c == nil {
		return PoolStats{}, false
	}
	switch t := c.Transport.(type) {
	case *pooledTransport:
		return t.st.snapshot(), true
	case *h2cTransport:
		return t.st.snapshot(), true
	}
	return PoolStats{}, false
}

// countDials wraps dial so that st counts the connections it makes and
// those still open.
func (s *poolStats) countDials(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		s.dials.Add(1)
		s.conns.Add(1)
		return &countedConn{Conn: c, st: s}, nil
	}
}

// countedConn leaves its client's count of open connections when closed.
type countedConn struct {
	net.Conn
	st     *poolStats
	closed atomic.Bool
}

func (c *countedConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.st.conns.Add(-1)
	}
	return c.Conn.Close()
}

// pooledTransport sends calls over a transport whose connections per
// server are capped, and standing streams over an uncapped one: a stream
// holds an HTTP/1.1 connection for as long as it is open (a session's GET
// stream, a legacy HTTP+SSE session's event stream, a WebSocket, a
// 2026-07-28 subscriptions/listen), so streams inside the cap would use it
// up and leave every call waiting. Over HTTP/2 the two transports cost one
// connection each.
type pooledTransport struct {
	calls   *http.Transport
	streams *http.Transport
	st      *poolStats
}

// standing reports whether r opens a stream that may stay open for the
// session's life: every GET (the MCP transports GET only event streams
// and WebSocket upgrades) and a subscriptions/listen.
func standing(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Header.Get("Mcp-Method") == "subscriptions/listen"
}

func (p *pooledTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if p.st.max <= 0 {
		return p.calls.RoundTrip(r)
	}
	if standing(r) {
		return p.streams.RoundTrip(r)
	}
	queued := p.st.inFlight.Add(1) > int64(p.st.max)
	resp, err := p.calls.RoundTrip(r)
	if err != nil {
		p.st.inFlight.Add(-1)
		if queued && !p.st.h2.Load() {
			p.st.waited.Add(1)
		}
		return nil, err
	}
	if resp.ProtoMajor != 1 {
		// HTTP/2 (an https server that offered it): streams share a
		// connection, and the counts of waiting stop.
		p.st.inFlight.Add(-1)
		if !p.st.h2.Load() {
			p.st.h2.Store(true)
		}
		return resp, nil
	}
	if queued {
		p.st.waited.Add(1)
	}
	resp.Body = &callBody{ReadCloser: resp.Body, st: p.st}
	return resp, nil
}

// CloseIdleConnections closes both transports' idle connections.
func (p *pooledTransport) CloseIdleConnections() {
	p.calls.CloseIdleConnections()
	if p.streams != p.calls {
		p.streams.CloseIdleConnections()
	}
}

// callBody ends its request's place among the requests in flight when it
// is closed: over HTTP/1.1 the connection is held until then.
type callBody struct {
	io.ReadCloser
	st     *poolStats
	closed atomic.Bool
}

func (b *callBody) Close() error {
	if b.closed.CompareAndSwap(false, true) {
		b.st.inFlight.Add(-1)
	}
	return b.ReadCloser.Close()
}
