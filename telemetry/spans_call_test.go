package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpengine/mcpengine/messages"
)

// The _meta values are quoted into a small buffer inside the CallSpan while
// they fit: the traceparent and this short tracestate share it, and the
// long baggage, which does not fit, must still arrive whole.
func TestStartCallSplicesTraceContextAndLongBaggageIntoMeta(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tel, err := New(Providers{Tracer: tp}, Options{})
	require.NoError(t, err)

	state, err := trace.ParseTraceState("v=1")
	require.NoError(t, err)
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{1},
		SpanID:     trace.SpanID{2},
		TraceFlags: trace.FlagsSampled,
		TraceState: state,
	})
	member, err := baggage.NewMember("user", strings.Repeat("b", 200))
	require.NoError(t, err)
	bag, err := baggage.New(member)
	require.NoError(t, err)
	ctx := baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), parent), bag)

	span, params := tel.StartCall(ctx, Peer{SessionName: "s"}, "", "", messages.MethodToolsCall,
		messages.RawMessage(`{"name":"echo","arguments":{}}`))
	span.Finished(1, nil, nil)

	var got struct {
		Meta map[string]string `json:"_meta"`
		Name string            `json:"name"`
	}
	require.NoError(t, messages.Unmarshal(params, &got))
	assert.Equal(t, "echo", got.Name)
	assert.Equal(t, state.String(), got.Meta["tracestate"])
	assert.Equal(t, bag.String(), got.Meta["baggage"])
	assert.Regexp(t, `^00-01000000000000000000000000000000-[0-9a-f]{16}-01$`, got.Meta["traceparent"])
}
