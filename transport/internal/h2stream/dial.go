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

// originKey is u's scheme://host:port, the pool a request goes to.
func originKey(u *url.URL) (string, error) {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme != "http" && scheme != "https":
		return "", errors.New("mcpengine/h2stream: unsupported URL scheme " + u.Scheme)
	case port != "":
	case scheme == "https":
		port = "443"
	default:
		port = "80"
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), nil
}

// isContextError reports whether err is a context's end.
func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// dial opens a connection to key's origin and completes the HTTP/2
// handshake (the preface, both SETTINGS), bounded by HandshakeTimeout and
// ctx. It returns errNotH2 when TLS negotiated another protocol.
func (t *Transport) dial(ctx context.Context, key string, u *url.URL) (*clientConn, error) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.HandshakeTimeout)
	defer cancel()
	https := strings.HasPrefix(key, "https://")
	addr := strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
	raw, err := t.opts.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	nc := raw
	if https {
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
			return nil, errNotH2
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
func (t *Transport) handshake(ctx context.Context, key string, nc net.Conn) (*clientConn, error) {
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
