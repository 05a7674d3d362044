package mcpengine_test

import (
	"context"
	"fmt"
	"runtime"
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
	for _, n := range benchInFlightLevels {
		b.Run(fmt.Sprintf("inflight=%d", n), func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			e := mcpengine.New(mcpengine.Config{Telemetry: telemetry.Providers{Tracer: tp, Meter: mp}})
			b.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				if err := e.Close(ctx); err != nil {
					b.Errorf("engine close: %v", err)
				}
				_ = tp.Shutdown(ctx)
				_ = mp.Shutdown(ctx)
			})
			s, err := e.Connect(context.Background(), mcpengine.SessionConfig{Name: "stdio", Server: benchStdioServer(b)})
			if err != nil {
				b.Fatal(err)
			}
			benchDriveEcho(b, s, 1000, n)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := benchProcessCPU()
			benchDriveEcho(b, s, b.N, n)
			b.ReportMetric(float64(benchProcessCPU()-cpu0)/float64(b.N), "client-cpu-ns/op")
		})
	}
}
