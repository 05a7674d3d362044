package mcpengine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
)

// telemetryEngine is an engine reporting to an in-memory span exporter and
// a manual metric reader.
func telemetryEngine(t *testing.T, opts telemetry.Options) (*mcpengine.Engine, *tracetest.InMemoryExporter, *sdkmetric.ManualReader) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	e := newEngine(t, mcpengine.Config{
		Telemetry:        telemetry.Providers{Tracer: tp, Meter: mp},
		TelemetryOptions: opts,
	})
	return e, spans, reader
}

func spanNamed(spans tracetest.SpanStubs, name string) (tracetest.SpanStub, bool) {
	for _, s := range spans {
		if s.Name == name {
			return s, true
		}
	}
	return tracetest.SpanStub{}, false
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value.String()
	}
	return out
}

func TestToolCallSpanFollowsTheConventionsAndItsTraceReachesTheServer(t *testing.T) {
	e, spans, _ := telemetryEngine(t, telemetry.Options{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "traced", Dialer: memoryDemo(t, demoserver.New(demoserver.Options{}))})
	require.NoError(t, err)

	// The caller's own span is the parent of the call's span.
	tracer := sdktrace.NewTracerProvider().Tracer("test")
	parentCtx, parent := tracer.Start(ctx, "caller")
	res, err := s.CallTool(parentCtx, "meta", map[string]any{})
	parent.End()
	require.NoError(t, err)

	stub, ok := spanNamed(spans.GetSpans(), "tools/call meta")
	require.True(t, ok, "span names: %v", names(spans.GetSpans()))
	assert.Equal(t, trace.SpanKindClient, stub.SpanKind)
	assert.Equal(t, parent.SpanContext().TraceID(), stub.SpanContext.TraceID(), "same trace as the caller")
	assert.Equal(t, parent.SpanContext().SpanID(), stub.Parent.SpanID(), "child of the caller's span")
	a := attrs(stub.Attributes)
	assert.Equal(t, "tools/call", a["mcp.method.name"])
	assert.Equal(t, "meta", a["gen_ai.tool.name"])
	assert.Equal(t, "execute_tool", a["gen_ai.operation.name"])
	assert.Equal(t, messages.Version20260728, a["mcp.protocol.version"], "the demo server's default speaks both eras")
	assert.NotEmpty(t, a["jsonrpc.request.id"])
	assert.Equal(t, "traced", a["mcpengine.session.name"])
	assert.NotContains(t, a, "error.type")
	assert.NotContains(t, a, "gen_ai.tool.call.arguments", "arguments only on opt-in")

	// The demo server echoes the _meta it received: the W3C traceparent of
	// the call's span, so the server's spans join the same trace.
	require.Len(t, res.Content, 1)
	text := res.Content[0].Text
	want := "00-" + stub.SpanContext.TraceID().String() + "-" + stub.SpanContext.SpanID().String() + "-01"
	assert.Contains(t, text, `"traceparent":"`+want+`"`)

	// Lifecycle: the connect phase and the handshake's server/discover.
	_, ok = spanNamed(spans.GetSpans(), telemetry.SpanConnect)
	assert.True(t, ok)
	_, ok = spanNamed(spans.GetSpans(), messages.MethodServerDiscover)
	assert.True(t, ok, "span names: %v", names(spans.GetSpans()))
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

func TestFailedCallsCarryTheirErrorType(t *testing.T) {
	e, spans, _ := telemetryEngine(t, telemetry.Options{RecordArguments: true})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "errs", Dialer: memoryDemo(t, demoserver.New(demoserver.Options{}))})
	require.NoError(t, err)

	res, err := s.CallTool(ctx, "fail", map[string]any{"message": "boom"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	stub, ok := spanNamed(spans.GetSpans(), "tools/call fail")
	require.True(t, ok)
	a := attrs(stub.Attributes)
	assert.Equal(t, "tool_error", a["error.type"])
	assert.Equal(t, `{"message":"boom"}`, a["gen_ai.tool.call.arguments"], "recorded on opt-in")

	_, err = s.GetPrompt(ctx, "no-such-prompt", nil)
	var we *messages.WireError
	require.True(t, errors.As(err, &we), "%v", err)
	stub, ok = spanNamed(spans.GetSpans(), "prompts/get no-such-prompt")
	require.True(t, ok, "%v", names(spans.GetSpans()))
	a = attrs(stub.Attributes)
	code := a["rpc.response.status_code"]
	assert.NotEmpty(t, code)
	assert.Equal(t, code, a["error.type"], "a JSON-RPC error is typed by its code")
	assert.Equal(t, "Error", stub.Status.Code.String())

	_, err = s.CallTool(ctx, "sleep", map[string]any{"ms": 5000}, mcpengine.WithTimeout(20*time.Millisecond))
	require.ErrorIs(t, err, mcpengine.ErrTimeout)
	stub, ok = spanNamed(spans.GetSpans(), "tools/call sleep")
	require.True(t, ok)
	assert.Equal(t, "timeout", attrs(stub.Attributes)["error.type"])
}

func TestProgressAndCancellationAreSpanEvents(t *testing.T) {
	e, spans, _ := telemetryEngine(t, telemetry.Options{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "events", Dialer: memoryDemo(t, demoserver.New(demoserver.Options{}))})
	require.NoError(t, err)

	got := make(chan struct{}, 8)
	_, err = s.CallTool(ctx, "progress", map[string]any{"steps": 3}, mcpengine.WithProgress(func(messages.ProgressParams) { got <- struct{}{} }))
	require.NoError(t, err)
	for range 3 {
		<-got
	}
	stub, ok := spanNamed(spans.GetSpans(), "tools/call progress")
	require.True(t, ok)
	progress := 0
	for _, ev := range stub.Events {
		if ev.Name == messages.NotificationProgress {
			progress++
		}
	}
	assert.Equal(t, 3, progress)

	cctx, cancel := context.WithCancel(ctx)
	f := s.CallAsync(cctx, messages.MethodToolsCall, map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 5000}})
	cancel()
	_, err = f.Await(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.Eventually(t, func() bool {
		stub, ok := spanNamed(spans.GetSpans(), "tools/call sleep")
		if !ok {
			return false
		}
		for _, ev := range stub.Events {
			if ev.Name == messages.NotificationCancelled {
				return attrs(stub.Attributes)["error.type"] == "cancelled"
			}
		}
		return false
	}, 5*time.Second, 5*time.Millisecond)
}

func TestServerRequestsContinueTheServersTrace(t *testing.T) {
	const traceID = "4bf92f3577b34a4736d0edd8a1f42b13"
	handled := make(chan trace.SpanContext, 1)
	e, spans, _ := telemetryEngine(t, telemetry.Options{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{
		Name: "inbound",
		Dialer: scriptedServer(messages.Version20251125, func(req messages.Message) [][]byte {
			// Answer any request with a sampling request carrying the
			// server's trace context; the original call is never answered.
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"_meta":{"traceparent":"00-` + traceID + `-00f067aa0ba902b7-01"},"messages":[],"maxTokens":1}}`)}
		}),
		Sampling: func(ctx context.Context, _ *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			handled <- trace.SpanContextFromContext(ctx)
			return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: mustSampling(messages.TextContent("ok"))}, nil
		},
	})
	require.NoError(t, err)
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_ = s.Ping(cctx)
	sc := <-handled
	assert.Equal(t, traceID, sc.TraceID().String(), "the handler runs inside the server's trace")
	require.Eventually(t, func() bool {
		stub, ok := spanNamed(spans.GetSpans(), messages.MethodSamplingCreateMessage)
		return ok && stub.SpanKind == trace.SpanKindServer && stub.Parent.TraceID().String() == traceID
	}, 5*time.Second, 5*time.Millisecond)
	stub, _ := spanNamed(spans.GetSpans(), messages.MethodSamplingCreateMessage)
	version := ""
	for _, kv := range stub.Attributes {
		if kv.Key == "mcp.protocol.version" {
			version = kv.Value.AsString()
		}
	}
	assert.Equal(t, messages.Version20251125, version, "the handler's span names the session's protocol version")
}

func TestMetricsAfterCalls(t *testing.T) {
	e, _, reader := telemetryEngine(t, telemetry.Options{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "metrics", Dialer: memoryDemo(t, demoserver.New(demoserver.Options{}))})
	require.NoError(t, err)
	for range 20 {
		_, err := s.CallTool(ctx, "echo", map[string]any{"text": "hi"})
		require.NoError(t, err)
	}
	found := collectMetrics(t, ctx, reader)
	hist, ok := found["mcp.client.operation.duration"].(metricdata.Histogram[float64])
	require.True(t, ok, "metrics: %v", keys(found))
	var toolCalls uint64
	for _, dp := range hist.DataPoints {
		if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() == "tools/call" {
			toolCalls += dp.Count
		}
	}
	assert.EqualValues(t, 20, toolCalls)

	states, ok := found[telemetry.MetricSessions].(metricdata.Gauge[int64])
	require.True(t, ok)
	ready := int64(-1)
	for _, dp := range states.DataPoints {
		if v, _ := dp.Attributes.Value("mcpengine.session.state"); v.AsString() == "ready" {
			ready = dp.Value
		}
	}
	assert.EqualValues(t, 1, ready)
	inflight, ok := found[telemetry.MetricRequestsInFlight].(metricdata.Sum[int64])
	require.True(t, ok)
	var sum int64
	for _, dp := range inflight.DataPoints {
		sum += dp.Value
	}
	assert.Zero(t, sum, "every call answered")
	assert.Contains(t, found, telemetry.MetricInvalidFrames)
	assert.Contains(t, found, telemetry.MetricQueueDepth)
}

// collectMetrics is every metric reader holds, by name.
func collectMetrics(t *testing.T, ctx context.Context, reader *sdkmetric.ManualReader) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	found := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			found[m.Name] = m.Data
		}
	}
	return found
}

func keys[M ~map[string]V, V any](m M) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(out, ",")
}

func TestAReconnectShowsAsBackoffSpanAndCountedReason(t *testing.T) {
	e, spans, reader := telemetryEngine(t, telemetry.Options{})
	ctx := testCtx(t, 10*time.Second)
	// Every connection closes after its second request (initialize is the
	// first): the session must go through backoff and come back.
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "flaky", Dialer: memoryDemo(t, demoserver.New(demoserver.Options{CloseAfter: 2}))})
	require.NoError(t, err)
	_ = s.Ping(ctx)
	_ = s.Ping(ctx)
	waitState(t, s, mcpengine.StateReady, 5*time.Second)

	require.Eventually(t, func() bool {
		_, ok := spanNamed(spans.GetSpans(), telemetry.SpanBackoff)
		return ok
	}, 5*time.Second, 5*time.Millisecond)
	stub, _ := spanNamed(spans.GetSpans(), telemetry.SpanBackoff)
	a := attrs(stub.Attributes)
	assert.NotEmpty(t, a["error.type"])
	assert.Equal(t, "flaky", a["mcpengine.session.name"])
	connects := 0
	for _, sp := range spans.GetSpans() {
		if sp.Name == telemetry.SpanConnect {
			connects++
		}
	}
	assert.GreaterOrEqual(t, connects, 2, "one connect span per attempt")

	found := collectMetrics(t, ctx, reader)
	var reconnects int64
	if sum, ok := found[telemetry.MetricReconnects].(metricdata.Sum[int64]); ok {
		for _, dp := range sum.DataPoints {
			reconnects += dp.Value
		}
	}
	var sessionDurations uint64
	if hist, ok := found["mcp.client.session.duration"].(metricdata.Histogram[float64]); ok {
		for _, dp := range hist.DataPoints {
			sessionDurations += dp.Count
		}
	}
	assert.GreaterOrEqual(t, reconnects, int64(1))
	assert.GreaterOrEqual(t, sessionDurations, uint64(1), "the dropped connection's session duration")
}
