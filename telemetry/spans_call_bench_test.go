package telemetry

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpengine/mcpengine/messages"
)

// BenchmarkCallSpan is telemetry's share of one call with real SDK
// providers: StartCall in the caller, Finished on the actor. The root
// package's BenchmarkCallStdioTelemetry shows the same cost inside a whole
// call; this isolates it, so a change to the span path can be measured
// without a server.
func BenchmarkCallSpan(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel, err := New(Providers{Tracer: tp, Meter: mp}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	peer := Peer{SessionName: "bench", Transport: mcpconv.NetworkTransportPipe}.Prepare()
	params := messages.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`)
	result := messages.RawMessage(`{"content":[{"type":"text","text":"hello"}]}`)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		span, _ := tel.StartCall(ctx, peer, messages.LatestVersion, "", messages.MethodToolsCall, params)
		span.Finished(int64(i%1000+1), result, nil)
	}
}
