package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Span names of the session lifecycle. The handshake is the span of its
// initialize request; these cover what surrounds it, so that a reconnect
// storm shows up as a run of connect and backoff spans.
const (
	SpanConnect = "mcp.session.connect"
	SpanBackoff = "mcp.session.backoff"
	SpanRestart = "mcp.session.restart"
)

// Attribute keys of the lifecycle spans.
const (
	AttrAttempt = attribute.Key("mcpengine.restart.attempt")
	AttrDelay   = attribute.Key("mcpengine.backoff.delay_ms")
	AttrReason  = attribute.Key("mcpengine.restart.reason")
)

// PhaseSpan is one lifecycle phase of a session.
type PhaseSpan struct {
	span trace.Span
}

// StartPhase starts a lifecycle span (SpanConnect, SpanBackoff, …).
func (t *Telemetry) StartPhase(name string, peer Peer, attrs ...attribute.KeyValue) *PhaseSpan {
	if t == nil {
		return nil
	}
	_, span := t.tracer.Start(context.Background(), name,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(append(peer.attrs(), attrs...)...))
	return &PhaseSpan{span: span}
}

// End ends the phase, failed when err is not nil.
func (p *PhaseSpan) End(err error) {
	if p == nil {
		return
	}
	if err != nil {
		p.span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		p.span.RecordError(err)
		p.span.SetStatus(codes.Error, err.Error())
	}
	p.span.End()
}

// Backoff records a session going into backoff after reason: a span for
// the wait (ended by the caller when the retry starts) and one point of
// the reconnects counter.
func (t *Telemetry) Backoff(peer Peer, reason error, attempt int, delay time.Duration) *PhaseSpan {
	if t == nil {
		return nil
	}
	return t.reconnect(SpanBackoff, peer, errorType(reason), reason,
		AttrAttempt.Int(attempt), AttrDelay.Int64(delay.Milliseconds()))
}

// Restart records that the session actor was restarted after a panic.
func (t *Telemetry) Restart(peer Peer, reason error) {
	if t == nil {
		return
	}
	t.reconnect(SpanRestart, peer, "panic", reason).End(nil)
}

// reconnect counts one reconnect caused by a failure of type errType and
// starts the span that shows it.
func (t *Telemetry) reconnect(name string, peer Peer, errType string, reason error, attrs ...attribute.KeyValue) *PhaseSpan {
	t.reconnects.Add(context.Background(), 1, metric.WithAttributes(semconv.ErrorTypeKey.String(errType)))
	attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	if reason != nil {
		attrs = append(attrs, AttrReason.String(reason.Error()))
	}
	return t.StartPhase(name, peer, attrs...)
}

// SessionEnded records mcp.client.session.duration for one connection
// that was ready for d; err is why it ended (nil for a clean close).
func (t *Telemetry) SessionEnded(peer Peer, protocolVersion string, d time.Duration, err error) {
	if t == nil {
		return
	}
	attrs := []attribute.KeyValue{}
	if peer.Transport != "" {
		attrs = append(attrs, t.sessionDuration.AttrNetworkTransport(peer.Transport))
	}
	if protocolVersion != "" {
		attrs = append(attrs, t.sessionDuration.AttrProtocolVersion(protocolVersion))
	}
	if err != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(err)))
	}
	t.sessionDuration.Record(context.Background(), d.Seconds(), attrs...)
}
