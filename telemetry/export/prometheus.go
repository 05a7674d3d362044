package export

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// PrometheusServer serves /metrics from an OpenTelemetry Prometheus reader
// (NewPrometheusReader). Add Reader() to a MeterProvider (Start does); the
// server then exposes whatever that provider's meters record.
type PrometheusServer struct {
	reader sdkmetric.Reader
	addr   string
	srv    *httpserve.Server
}

// ServePrometheus listens on addr and serves /metrics until Stop. A bare
// port ("9464") or an address without a host (":9464") binds 127.0.0.1.
// An address that is not loopback is refused unless allowNonLoopback: the
// metrics name the servers the engine runs, not something to publish to the
// network by a typo. Host names other than "localhost" count as not
// loopback (no DNS lookup decides what gets exposed). ctx bounds the listen.
func ServePrometheus(ctx context.Context, addr string, allowNonLoopback bool) (*PrometheusServer, error) {
	addr, err := prometheusListenAddr(addr, allowNonLoopback)
	if err != nil {
		return nil, err
	}

	reader, handler, err := NewPrometheusReader()
	if err != nil {
		return nil, err
	}

	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("telemetry: prometheus listen: %w", err)
	}

	mux := http.NewServeMux()
	mux.Handle("GET /metrics", handler)
	return &PrometheusServer{
		reader: reader,
		addr:   ln.Addr().String(),
		// Timeouts so a stuck scraper cannot hold a connection (and a
		// goroutine) open forever.
		srv: httpserve.Serve(ln, &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 5 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       60 * time.Second,
		}),
	}, nil
}

// prometheusListenAddr applies the loopback default and policy.
func prometheusListenAddr(addr string, allowNonLoopback bool) (string, error) {
	addr = strings.TrimSpace(addr)
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("telemetry: prometheus address %q: want host:port, :port or port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !allowNonLoopback && !httpserve.IsLoopbackHost(host) {
		return "", fmt.Errorf("telemetry: prometheus address %q is not loopback: serving metrics beyond this host must be allowed explicitly", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// Reader is the metric reader to add to a MeterProvider. The provider's
// Shutdown shuts it down; Stop only stops serving.
func (s *PrometheusServer) Reader() sdkmetric.Reader { return s.reader }

// Addr is the address actually bound (with the real port for ":0").
func (s *PrometheusServer) Addr() string { return s.addr }

// URL is the scrape URL.
func (s *PrometheusServer) URL() string { return "http://" + s.addr + "/metrics" }

// Stop stops accepting scrapes, waits for those in progress until ctx ends
// (then drops them), and releases the port. Later calls return the first
// call's result.
func (s *PrometheusServer) Stop(ctx context.Context) error { return s.srv.Close(ctx) }
