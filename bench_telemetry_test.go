package mcpengine_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/telemetry"
)

// BenchmarkCallStdioTelemetry is BenchmarkCallStdio with telemetry on and
// real SDK providers: every call gets a sampled span (batched to an
// exporter that discards) and a duration point in a live meter. Compare it
// with BenchmarkCallStdio from the same run for the cost of telemetry; with
// telemetry off the call path allocates nothing for it, which
// BenchmarkCallStdio's allocs/op shows against the commit before
// telemetry.
func BenchmarkCallStdioTelemetry(b *testing.B) {
	benchCallStdio(b, func(b *testing.B) mcpengine.Config {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		// Registered before the engine's Close, so it runs after it.
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			_ = tp.Shutdown(ctx)
			_ = mp.Shutdown(ctx)
		})
		return mcpengine.Config{Telemetry: telemetry.Providers{Tracer: tp, Meter: mp}}
	})
}
