package mcpserver

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// Defaults of ListenOptions.
const (
	// DefaultReadHeaderTimeout bounds the time to read a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultMaxConnections caps the connections served at once: enough
	// for thousands of HTTP/1.1 sessions each with a call in flight (an
	// h2c client needs one), few enough that a client opening connections
	// without end runs into it before the process runs out of descriptors.
	DefaultMaxConnections = 8192
	// idleTimeout ends keep-alive connections nobody uses.
	idleTimeout = 2 * time.Minute
)

// ListenOptions bound what clients may hold of a server (the zero value
// applies the defaults).
type ListenOptions struct {
	// ReadHeaderTimeout bounds the time to read a request's headers
	// (0: DefaultReadHeaderTimeout). The body has its own bound, the
	// handler's (httpserve.Guard).
	ReadHeaderTimeout time.Duration
	// MaxConnections caps the connections open at once (0:
	// DefaultMaxConnections; negative: no cap). Past it, new connections
	// wait in the kernel's queue until one closes.
	MaxConnections int
}

// Listen serves h on a TCP listener at addr (host:port; port 0 picks a
// free one) and returns the base URL ("http://host:port") and the server,
// which Close stops. It speaks HTTP/1.1 and HTTP/2 without TLS to clients
// that know it in advance (h2c with prior knowledge, what a client with
// thousands of sessions wants: one connection for all). The header
// timeout keeps a client that never finishes its headers from holding a
// connection; the idle timeout ends keep-alive connections nobody uses;
// the connection cap bounds the descriptors clients can take. The
// http.Server's own log goes to logger at debug level (a client hanging
// up is not the server's error).
func Listen(addr string, h http.Handler, logger *slog.Logger, o ListenOptions) (string, *httpserve.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	url := "http://" + ln.Addr().String()
	switch {
	case o.MaxConnections == 0:
		ln = netutil.LimitListener(ln, DefaultMaxConnections)
	case o.MaxConnections > 0:
		ln = netutil.LimitListener(ln, o.MaxConnections)
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       idleTimeout,
		Protocols:         &protocols,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	return url, httpserve.Serve(ln, hs), nil
}
