// Package export turns the engine's telemetry into something that leaves
// the process: it builds the OpenTelemetry SDK providers and the pipelines
// behind them (OTLP over HTTP or gRPC configured by the OTEL_EXPORTER_OTLP_*
// variables, pretty-printed stdout, a Prometheus /metrics endpoint), and
// hands the CLI a telemetry.Providers to put in the engine's Config.
//
// It is a package of its own because the SDK, the exporters, gRPC and
// Prometheus are an application's choice, not a library's: an embedder that
// imports only the root package (and with it telemetry, which depends on
// the OpenTelemetry API alone) links none of them, and supplies whatever
// providers its own SDK setup builds.
package export
