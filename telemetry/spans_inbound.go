package telemetry

import (
	"context"

	"github.com/bytedance/sonic"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpengine/mcpengine/messages"
)

// StartInbound starts the span of a server→client request (sampling,
// elicitation) as a child of the trace context the server put in
// params._meta, if any, and returns the context the handler should run
// with, so the application's own spans join the server's trace.
// protocolVersion is the session's (empty before its handshake).
func (t *Telemetry) StartInbound(ctx context.Context, peer Peer, protocolVersion, method string, params messages.RawMessage) (context.Context, *PhaseSpan) {
	if t == nil {
		return ctx, nil
	}
	ctx = t.propagator.Extract(ctx, metaCarrier(params))
	attrs := append(peer.attrs(), semconv.McpMethodNameKey.String(method))
	if protocolVersion != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(protocolVersion))
	}
	ctx, span := t.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, &PhaseSpan{span: span}
}

// metaCarrier reads the string members of params._meta that the
// propagators know (traceparent, tracestate, baggage).
func metaCarrier(params messages.RawMessage) propagation.MapCarrier {
	carrier := propagation.MapCarrier{}
	if len(params) == 0 {
		return carrier
	}
	for _, k := range []string{"traceparent", "tracestate", "baggage"} {
		n, err := sonic.Get(params, "_meta", k)
		if err != nil {
			continue
		}
		if v, err := n.String(); err == nil {
			carrier[k] = v
		}
	}
	return carrier
}
