package mcpserver

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// Listen serves h on a TCP listener at addr (host:port; port 0 picks a
// free one) and returns the base URL ("http://host:port") and the server,
// which Close stops. The header timeout keeps a client that never
// finishes its headers from holding a connection; the idle timeout ends
// keep-alive connections nobody uses. The http.Server's own log goes to
// logger at debug level (a client hanging up is not the server's error).
func Listen(addr string, h http.Handler, logger *slog.Logger) (string, *httpserve.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	return "http://" + ln.Addr().String(), httpserve.Serve(ln, hs), nil
}
