// Package telemetry wires the engine to OpenTelemetry: the tracer and meter
// providers come from the engine's Config (never from otel's globals), and
// default to no-ops so an engine without telemetry pays nothing.
//
// Spans and metrics by the MCP semantic conventions are issue 5; this
// package holds the provider plumbing they will use.
package telemetry
