// Package telemetry wires the engine to OpenTelemetry: the tracer and meter
// providers come from the engine's Config (never from otel's globals), and
// default to no-ops so an engine without telemetry pays nothing.
//
// It records spans and metrics by the MCP semantic conventions (call
// spans, server→client request spans, session lifecycle spans,
// mcp.client.operation.duration and mcp.client.session.duration, the
// engine's own counters) and builds the export pipelines (OTLP, stdout,
// Prometheus) the CLI offers. A nil *Telemetry is "off".
package telemetry
