package export

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTLP protocols (OTEL_EXPORTER_OTLP_PROTOCOL values) the Go exporters
// speak. The spec's third value, http/json, has no Go exporter.
const (
	protoHTTP = "http/protobuf"
	protoGRPC = "grpc"
)

// otlpSignal is one OTLP signal: its infix in the per-signal variables and
// its path under a base OTLP/HTTP endpoint.
type otlpSignal struct {
	name, env, path string
}

var (
	sigTraces  = otlpSignal{name: "traces", env: "TRACES", path: "/v1/traces"}
	sigMetrics = otlpSignal{name: "metrics", env: "METRICS", path: "/v1/metrics"}
)

// otlpProtocols is the protocol chosen for each signal.
type otlpProtocols struct{ traces, metrics string }

// resolveOTLPProtocols reads OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL,
// falling back to OTEL_EXPORTER_OTLP_PROTOCOL, then to http/protobuf (the
// spec's default). The exporters read every other setting (endpoint,
// headers, TLS, timeout, compression) from the environment themselves; the
// protocol is the one choice they cannot make, because it picks the package.
func resolveOTLPProtocols() (otlpProtocols, error) {
	t, err := otlpProtocol(sigTraces)
	if err != nil {
		return otlpProtocols{}, err
	}
	m, err := otlpProtocol(sigMetrics)
	if err != nil {
		return otlpProtocols{}, err
	}
	return otlpProtocols{traces: t, metrics: m}, nil
}

func otlpProtocol(sig otlpSignal) (string, error) {
	name, v := otlpEnv(sig, "PROTOCOL")
	switch v {
	case "", protoHTTP:
		return protoHTTP, nil
	case protoGRPC:
		return protoGRPC, nil
	case "http/json":
		return "", fmt.Errorf("telemetry: %s=http/json is not supported by the Go OTLP exporters: use %s or %s", name, protoHTTP, protoGRPC)
	default:
		return "", fmt.Errorf("telemetry: %s=%q: valid protocols are %s, %s", name, v, protoHTTP, protoGRPC)
	}
}

// otlpEnv returns the per-signal variable OTEL_EXPORTER_OTLP_<SIG>_<key>
// if set, else the general OTEL_EXPORTER_OTLP_<key>, with the name of the one
// it used. Empty values count as unset, as in the exporters.
func otlpEnv(sig otlpSignal, key string) (name, value string) {
	for _, n := range []string{"OTEL_EXPORTER_OTLP_" + sig.env + "_" + key, "OTEL_EXPORTER_OTLP_" + key} {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return n, v
		}
	}
	return "OTEL_EXPORTER_OTLP_" + key, ""
}

// newOTLPExporters builds the span and metric exporters for the chosen
// protocols. Neither connects here: the HTTP clients dial per request and
// the gRPC clients connect lazily, so a collector that is down at startup
// costs failed exports (reported through otel's error handler), not a
// failed start.
func newOTLPExporters(ctx context.Context, p otlpProtocols) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	var (
		spanExp sdktrace.SpanExporter
		err     error
	)
	if p.traces == protoGRPC {
		spanExp, err = otlptracegrpc.New(ctx)
	} else {
		spanExp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: OTLP trace exporter (%s): %w", p.traces, err)
	}

	var metricExp sdkmetric.Exporter
	if p.metrics == protoGRPC {
		metricExp, err = otlpmetricgrpc.New(ctx)
	} else {
		metricExp, err = otlpmetrichttp.New(ctx)
	}
	if err != nil {
		_ = spanExp.Shutdown(context.Background())
		return nil, nil, fmt.Errorf("telemetry: OTLP metric exporter (%s): %w", p.metrics, err)
	}
	return spanExp, metricExp, nil
}
