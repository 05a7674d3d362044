// Package protoactor holds the engine's copy of protoactor-go's actor
// package and the packages it imports (github.com/asynkron/protoactor-go
// at v0.0.0-20240822202345-3c0e61ca19c9, Apache License 2.0: LICENSE),
// which every session actor runs on. Two changes: actor/config.go's
// opt-in Prometheus meter provider (WithDefaultPrometheusProvider) is
// gone, since Go linked its OpenTelemetry Prometheus exporter, metric SDK
// and promhttp into every program that embeds the engine, used or not;
// and the process table's size is a Config field
// (WithProcessTableBuckets), where protoactor-go always builds 1,024 maps
// (2.8 MB, ~5 ms per actor system) that the engine does not need.
// Its protobuf messages are declared in the package
// mcpengine.protoactor.actor (actor/actor.proto, `make proto`), so that
// a program that also links protoactor-go itself (the cluster) registers
// no name twice. The cluster (cluster/) runs on protoactor-go proper.
package protoactor
