package export

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// NewPrometheusReader returns a metric reader to add to a MeterProvider and
// the /metrics handler that serves what it reads. Both the CLI's
// --prometheus endpoint and the gateway's /metrics are built on it, so they
// expose the same series the same way.
//
// The registry is a fresh one, not prometheus's global: nothing other code
// registers globally leaks in, and two endpoints in one process do not
// collide. It carries the Go runtime and process collectors beside the
// reader, because goroutines, heap and open fds are what a load test of
// many sessions is about. The provider's Shutdown shuts the reader down.
func NewPrometheusReader() (sdkmetric.Reader, http.Handler, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reader, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	return reader, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), nil
}
