// Package telemetry wires the engine to OpenTelemetry: the tracer and meter
// providers come from the engine's Config (never from otel's globals), and
// default to no-ops so an engine without telemetry pays nothing.
//
// It records spans and metrics by the MCP semantic conventions (call
// spans, server→client request spans, session lifecycle spans,
// mcp.client.operation.duration and mcp.client.session.duration, the
// engine's own counters). A nil *Telemetry is "off".
//
// It depends on the OpenTelemetry API only, as OpenTelemetry asks of
// libraries: the SDK, the exporters and the Prometheus endpoint the CLI
// offers live in telemetry/export, so a program embedding the engine links
// them only if it chooses them.
package telemetry
