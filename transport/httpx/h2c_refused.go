package httpx

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"net/http"
	"sync"
)

// H2CRefusedError says that a server reached with HTTP/2 prior knowledge
// (ClientOptions.HTTP2PriorKnowledge) will never carry a request: it
// answered the connection preface in HTTP/1.1 (it does not speak h2c), or
// its first SETTINGS allow no stream at all (MAX_CONCURRENT_STREAMS 0).
// net/http reports either as "http2: client conn could not be
// established" or lets the request wait for a stream until its deadline;
// this error names the cause instead. It is Unreachable: no request
// reached the server, so a session that was never ready gives up at once.
type H2CRefusedError struct {
	// Reason says what the server did and what to change.
	Reason string
	// Cause is net/http's own error for the request.
	Cause error
}

func (e *H2CRefusedError) Error() string { return e.Reason }

// Unwrap gives net/http's error.
func (e *H2CRefusedError) Unwrap() error { return e.Cause }

// Unreachable marks the error for transport.Unreachable: nothing reached
// the server.
func (e *H2CRefusedError) Unreachable() bool { return true }

const (
	reasonHTTP1     = "the server answered HTTP/2 prior knowledge (h2c) in HTTP/1.1: it does not speak h2c; turn http2PriorKnowledge off for it"
	reasonNoStreams = "the server's HTTP/2 SETTINGS allow no stream (MAX_CONCURRENT_STREAMS 0): it accepts no request"
)

// h2cVerdicts remembers, per dialed address, why the last prior-knowledge
// connection to it can carry no request. The verdict is found by the
// connection's reader, inside net/http, and the request's error comes out
// of RoundTrip without it: the address joins the two.
type h2cVerdicts struct {
	mu     sync.Mutex
	byAddr map[string]string
}

func (v *h2cVerdicts) set(addr, reason string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if reason == "" {
		delete(v.byAddr, addr)
		return
	}
	if v.byAddr == nil {
		v.byAddr = make(map[string]string)
	}
	v.byAddr[addr] = reason
}

func (v *h2cVerdicts) get(addr string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.byAddr[addr]
}

// dial wraps a prior-knowledge client's dial so that each connection's
// first bytes are checked.
func (v *h2cVerdicts) dial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &prefaceWatch{Conn: c, addr: addr, v: v}, nil
	}
}

// prefaceWatch looks at what a server sends first on a connection that
// opened with the HTTP/2 preface: an HTTP/1.1 status line, or a SETTINGS
// frame granting no stream, is a verdict, and the read fails with it so
// that net/http drops the connection at once. Anything else (a TLS
// record on an https connection, a well-formed SETTINGS frame) ends the
// watch; reads then pass straight through. net/http reads a connection
// from one goroutine, so the watch needs no lock.
type prefaceWatch struct {
	net.Conn
	addr string
	v    *h2cVerdicts
	done bool
	head []byte // what was read so far, until the first frame is whole
}

// frameHeaderLen is an HTTP/2 frame header's length; maxFirstFrame is
// the largest frame a peer may send before SETTINGS are exchanged.
const (
	frameHeaderLen              = 9
	maxFirstFrame               = 1 << 14
	frameSettings               = 0x4
	flagAck                     = 0x1
	settingMaxConcurrentStreams = 0x3
)

func (c *prefaceWatch) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.done || n == 0 {
		return n, err
	}
	c.head = append(c.head, p[:n]...)
	reason, decided := firstFrameVerdict(c.head)
	if !decided {
		return n, err
	}
	c.done, c.head = true, nil
	c.v.set(c.addr, reason)
	if reason != "" {
		return 0, &H2CRefusedError{Reason: reason}
	}
	return n, err
}

// firstFrameVerdict reads the start of what a server sent after the
// client's preface: decided is false while more bytes are needed, and
// reason is empty when nothing is wrong (or it is not HTTP/2's to judge).
func firstFrameVerdict(b []byte) (reason string, decided bool) {
	const status = "HTTP/1."
	if len(b) < len(status) && bytes.HasPrefix([]byte(status), b) {
		return "", false
	}
	if bytes.HasPrefix(b, []byte(status)) {
		return reasonHTTP1, true
	}
	if len(b) < frameHeaderLen {
		return "", false
	}
	length := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
	stream := binary.BigEndian.Uint32(b[5:9]) & 0x7fffffff
	if b[3] != frameSettings || b[4]&flagAck != 0 || stream != 0 || length > maxFirstFrame || length%6 != 0 {
		return "", true // not a first SETTINGS frame: net/http judges it
	}
	if len(b) < frameHeaderLen+length {
		return "", false
	}
	for s := b[frameHeaderLen : frameHeaderLen+length]; len(s) >= 6; s = s[6:] {
		if binary.BigEndian.Uint16(s) == settingMaxConcurrentStreams && binary.BigEndian.Uint32(s[2:]) == 0 {
			return reasonNoStreams, true
		}
	}
	return "", true
}

// h2cTransport is a prior-knowledge client's RoundTripper: net/http's
// transport, whose errors are explained by the verdict on the address
// the request went to, when there is one.
type h2cTransport struct {
	*http.Transport
	v  *h2cVerdicts
	st *poolStats
}

func (t *h2cTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.Transport.RoundTrip(req)
	if err == nil {
		return resp, nil
	}
	if reason := t.v.get(dialAddr(req)); reason != "" {
		return nil, &H2CRefusedError{Reason: reason, Cause: err}
	}
	return nil, err
}

// dialAddr is the host:port net/http dials for req (no proxy: h2c goes
// direct).
func dialAddr(req *http.Request) string {
	host := req.URL.Host
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if req.URL.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(req.URL.Hostname(), port)
}
