package telemetry

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpengine/mcpengine/messages"
)

// A session's Peer is shared by the spans started on the actor (lifecycle
// phases) and on the goroutines of server→client requests. Its prepared
// attributes (here three, in a slice that would have room for a fourth)
// must not be appended to in place: under -race this test fails if they
// are, and each span must keep its own attributes.
func TestPeerAttributesAreSharedSafelyAcrossGoroutines(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tel, err := New(Providers{Tracer: tp}, Options{})
	require.NoError(t, err)
	peer := Peer{SessionName: "s", Transport: mcpconv.NetworkTransportTCP, ServerAddress: "mcp.example"}.Prepare()

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				tel.StartPhase(SpanConnect, peer, AttrAttempt.Int(i)).End(nil)
				return
			}
			_, span := tel.StartInbound(context.Background(), peer, "2025-11-25", messages.MethodSamplingCreateMessage, nil)
			span.End(nil)
		})
	}
	wg.Wait()

	got := spans.GetSpans()
	require.Len(t, got, 8)
	for _, s := range got {
		a := map[string]bool{}
		for _, kv := range s.Attributes {
			a[string(kv.Key)] = true
		}
		assert.True(t, a["server.address"], s.Name)
		assert.Equal(t, s.Name == SpanConnect, a[string(AttrAttempt)], s.Name)
		assert.Equal(t, s.Name != SpanConnect, a["mcp.method.name"], s.Name)
	}
}
