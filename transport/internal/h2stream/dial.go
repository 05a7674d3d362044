package h2stream

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"
)

// originKey names the pool a request goes to: its scheme and its
// host:port, lower case.
type originKey struct {
	https bool
	addr  string // host:port
}

// originOf is u's originKey. A URL already in that form (a port, no
// upper case: the engine's own) is its own key, with no allocation on a
// request's path.
func originOf(u *url.URL) (originKey, error) {
	var https bool
	switch u.Scheme {
	case "http":
	case "https":
		https = true
	default:
		switch strings.ToLower(u.Scheme) {
		case "http":
		case "https":
			https = true
		default:
			return originKey{}, errors.New("mcpengine/h2stream: unsupported URL scheme " + u.Scheme)
		}
	}
	if u.Port() != "" && !hasUpper(u.Host) {
		return originKey{https: https, addr: u.Host}, nil
	}
	port := u.Port()
	switch {
	case port != "":
	case https:
		port = "443"
	default:
		port = "80"
	}
	return originKey{https: https, addr: net.JoinHostPort(strings.ToLower(u.Hostname()), port)}, nil
}

// hasUpper reports an ASCII upper-case letter in s.
func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// isContextError reports whether err is a context's end.
func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// dial opens a connection to key's origin and completes the HTTP/2
// handshake (the preface, both SETTINGS), bounded by HandshakeTimeout and
// ctx. It returns ErrNotH2 when TLS negotiated another protocol.
func (t *Transport) dial(ctx context.Context, key originKey, u *url.URL) (*clientConn, error) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.HandshakeTimeout)
	defer cancel()
	raw, err := t.opts.DialContext(ctx, "tcp", key.addr)
	if err != nil {
		return nil, err
	}
	nc := raw
	if key.https {
		cfg := &tls.Config{}
		if t.opts.TLS != nil {
			cfg = t.opts.TLS.Clone()
		}
		cfg.NextProtos = []string{"h2", "http/1.1"}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		tc := tls.Client(raw, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			return nil, err
		}
		if tc.ConnectionState().NegotiatedProtocol != "h2" {
			_ = tc.Close()
			return nil, ErrNotH2
		}
		nc = tc
	}
	// A cancelled request ends the handshake's reads and writes at once.
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	cc, err := t.handshake(ctx, key, nc)
	if !stop() || err != nil {
		_ = nc.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	return cc, nil
}

// handshake sends the client preface and SETTINGS, reads the server's
// SETTINGS (the first frame it must send), acknowledges them and starts
// the read loop.
func (t *Transport) handshake(ctx context.Context, key originKey, nc net.Conn) (*clientConn, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	cc := newClientConn(t, key, nc)
	if err := cc.writePreface(); err != nil {
		return nil, err
	}
	if err := cc.readServerSettings(); err != nil {
		return nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	cc.startHealth()
	t.loops.Add(1)
	go cc.readLoop() // Owner: the Transport (loops). Exits when the connection is closed or fails; Close waits for it.
	return cc, nil
}
