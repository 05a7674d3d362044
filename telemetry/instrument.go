package telemetry

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
)

// Options choose what telemetry may record beyond the conventions'
// defaults. Everything here is off unless the user opts in: tool arguments
// can hold secrets and personal data.
type Options struct {
	// RecordArguments adds tool-call arguments to call spans
	// (gen_ai.tool.call.arguments).
	RecordArguments bool
}

// Telemetry is the engine's instrumentation: a tracer, the MCP semantic
// convention metrics and the engine's own counters. A nil *Telemetry is
// "off": every method is safe to call on nil and does nothing, and the
// engine's hot path checks for nil before doing any work, so an engine
// without telemetry allocates nothing for it.
type Telemetry struct {
	opts       Options
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator

	operationDuration mcpconv.ClientOperationDuration
	sessionDuration   mcpconv.ClientSessionDuration
	inFlight          metric.Int64UpDownCounter
	reconnects        metric.Int64Counter
	meter             metric.Meter
	cache             attrCache
}

// New builds the instrumentation for p, or returns nil (off) when p sets
// neither a tracer nor a meter provider.
func New(p Providers, o Options) (*Telemetry, error) {
	if p.Tracer == nil && p.Meter == nil {
		return nil, nil
	}
	meter := p.MeterProvider().Meter(InstrumentationName)
	t := &Telemetry{
		opts:   o,
		tracer: p.EngineTracer(),
		// W3C trace context and baggage: what the 2026-07-28 spec carries
		// in params._meta (traceparent, tracestate, baggage).
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		meter:      meter,
	}
	var err error
	if t.operationDuration, err = mcpconv.NewClientOperationDuration(meter); err != nil {
		return nil, err
	}
	if t.sessionDuration, err = mcpconv.NewClientSessionDuration(meter); err != nil {
		return nil, err
	}
	if t.inFlight, err = meter.Int64UpDownCounter(MetricRequestsInFlight,
		metric.WithDescription("MCP requests sent and not yet answered."), metric.WithUnit("{request}")); err != nil {
		return nil, err
	}
	if t.reconnects, err = meter.Int64Counter(MetricReconnects,
		metric.WithDescription("Session reconnects, by the error.type of the failure that caused them."), metric.WithUnit("{reconnect}")); err != nil {
		return nil, err
	}
	return t, nil
}

// The engine's own metric names, beside the conventions' mcp.client.*.
const (
	MetricRequestsInFlight = "mcpengine.client.requests.in_flight"
	MetricReconnects       = "mcpengine.client.reconnects"
	MetricSessions         = "mcpengine.client.sessions"
	MetricInvalidFrames    = "mcpengine.client.frames.invalid"
	MetricQueueDepth       = "mcpengine.client.queue.depth"
	// MetricLocalResourceFailures counts requests and dials that failed
	// for want of descriptors or buffer memory in this process.
	MetricLocalResourceFailures = "mcpengine.client.local_resource_failures"
	// MetricHTTPConnections is the number of connections open to each
	// HTTP server the engine keeps a pool for.
	MetricHTTPConnections = "mcpengine.client.http.connections"
	// MetricHTTPConnectionLimit is each pool's cap on the connections
	// carrying calls (ServerConfig.MaxConnections; 0: none).
	MetricHTTPConnectionLimit = "mcpengine.client.http.connections.limit"
	// MetricHTTPConnectionWaits counts the HTTP/1.1 calls that found the
	// cap's connections all taken and waited for one to come free.
	MetricHTTPConnectionWaits = "mcpengine.client.http.connection_waits"
)

// Meter is the engine's meter, for observable instruments registered by
// the engine (sessions by state, invalid frames, queue depth).
func (t *Telemetry) Meter() metric.Meter {
	if t == nil {
		return nil
	}
	return t.meter
}
