package telemetry

import (
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// InstrumentationName identifies the engine's tracer and meter.
const InstrumentationName = "github.com/mcpengine/mcpengine"

// Providers are the OpenTelemetry providers an engine reports to. The zero
// value reports nothing.
type Providers struct {
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
}

// TracerProvider returns the configured provider or a no-op one.
func (p Providers) TracerProvider() trace.TracerProvider {
	if p.Tracer == nil {
		return tracenoop.NewTracerProvider()
	}
	return p.Tracer
}

// MeterProvider returns the configured provider or a no-op one.
func (p Providers) MeterProvider() metric.MeterProvider {
	if p.Meter == nil {
		return metricnoop.NewMeterProvider()
	}
	return p.Meter
}

// EngineTracer returns the engine's tracer.
func (p Providers) EngineTracer() trace.Tracer { return p.TracerProvider().Tracer(InstrumentationName) }
