package export

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/telemetry"
)

// record ends one span and adds n to one counter through p's providers.
func record(t *testing.T, p telemetry.Providers, span, counter string, n int64) {
	t.Helper()
	ctx := context.Background()
	_, s := p.TracerProvider().Tracer("export-test").Start(ctx, span)
	s.End()
	c, err := p.MeterProvider().Meter("export-test").Int64Counter(counter)
	require.NoError(t, err)
	c.Add(ctx, n)
}

func shutdown(t *testing.T, p *Pipeline) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, p.Shutdown(ctx))
}

// The default protocol, http/protobuf, configured only by the environment:
// nothing is sent until Shutdown flushes the batch processor and runs the
// periodic reader's final collection.
func TestExportOTLPHTTPDeliversSpanAndMetricOnShutdown(t *testing.T) {
	cleanOTelEnv(t)
	c := newCollector()
	srv := serveOTLPHTTP(t, c)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20s3cret-token,x-tenant=acme")

	p, err := Start(context.Background(), Options{Mode: "otlp", ServiceVersion: "v9.9.9"})
	require.NoError(t, err)
	desc := p.String()
	assert.Contains(t, desc, "otlp traces via http/protobuf to "+srv.URL+"/v1/traces")
	assert.Contains(t, desc, "otlp metrics via http/protobuf to "+srv.URL+"/v1/metrics")
	assert.Contains(t, desc, "headers Authorization, x-tenant; values not shown")
	assert.Contains(t, desc, "service.name=mcpengine service.version=v9.9.9")
	assert.NotContains(t, desc, "s3cret")
	assert.NotContains(t, desc, "acme")

	record(t, p.Providers, "http-span", "http.calls", 3)
	assert.Empty(t, c.snapshot().spans, "batched: nothing sent before the flush")
	shutdown(t, p)

	got := c.snapshot()
	assert.Equal(t, []string{"http-span"}, got.spans)
	assert.Equal(t, int64(3), got.sums["http.calls"])
	assert.Equal(t, []string{"mcpengine", "mcpengine"}, got.services)
	assert.Equal(t, []string{"Bearer s3cret-token", "Bearer s3cret-token"}, got.auth, "headers come from the environment, percent-decoded")
}

// OTEL_EXPORTER_OTLP_PROTOCOL=grpc switches both signals to the gRPC
// exporters; an http:// endpoint means plaintext.
func TestExportOTLPGRPCDeliversSpanAndMetricOnShutdown(t *testing.T) {
	cleanOTelEnv(t)
	c := newCollector()
	addr := serveOTLPGRPC(t, c)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+addr)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=grpc-s3cret")
	t.Setenv("OTEL_SERVICE_NAME", "engine-under-test")

	p, err := Start(context.Background(), Options{Mode: "otlp"})
	require.NoError(t, err)
	assert.Contains(t, p.String(), "otlp traces via grpc to http://"+addr)
	assert.Contains(t, p.String(), "otlp metrics via grpc to http://"+addr)
	assert.Contains(t, p.String(), "service.name=engine-under-test")
	assert.NotContains(t, p.String(), "grpc-s3cret")

	record(t, p.Providers, "grpc-span", "grpc.calls", 5)
	shutdown(t, p)

	got := c.snapshot()
	assert.Equal(t, []string{"grpc-span"}, got.spans)
	assert.Equal(t, int64(5), got.sums["grpc.calls"])
	assert.Equal(t, []string{"engine-under-test", "engine-under-test"}, got.services)
	assert.Equal(t, []string{"grpc-s3cret", "grpc-s3cret"}, got.auth)
}

// A per-signal protocol overrides the general one: traces over gRPC,
// metrics over HTTP, each to its own per-signal endpoint (used as is).
func TestExportOTLPPerSignalProtocolAndEndpoint(t *testing.T) {
	cleanOTelEnv(t)
	traces, metrics := newCollector(), newCollector()
	addr := serveOTLPGRPC(t, traces)
	srv := serveOTLPHTTP(t, metrics)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://"+addr)
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", srv.URL+"/v1/metrics")

	p, err := Start(context.Background(), Options{Mode: "otlp"})
	require.NoError(t, err)
	assert.Contains(t, p.String(), "otlp traces via grpc to http://"+addr)
	assert.Contains(t, p.String(), "otlp metrics via http/protobuf to "+srv.URL+"/v1/metrics")

	record(t, p.Providers, "split-span", "split.calls", 2)
	shutdown(t, p)

	assert.Equal(t, []string{"split-span"}, traces.snapshot().spans)
	assert.Empty(t, traces.snapshot().sums)
	assert.Equal(t, int64(2), metrics.snapshot().sums["split.calls"])
	assert.Empty(t, metrics.snapshot().spans)
}

func TestExportOTLPRejectsUnsupportedProtocols(t *testing.T) {
	for _, tc := range []struct{ env, value, want string }{
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json is not supported"},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "thrift", `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="thrift": valid protocols are http/protobuf, grpc`},
		{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "GRPC ", `valid protocols are`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			cleanOTelEnv(t)
			t.Setenv(tc.env, tc.value)
			_, err := Start(context.Background(), Options{Mode: ModeOTLP})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// Malformed values the exporters would log verbatim (possibly a token) fail
// the start instead, with a message naming the variable but not the value.
func TestExportOTLPRejectsMalformedEnvWithoutEchoingIt(t *testing.T) {
	for _, tc := range []struct{ env, value string }{
		{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization Bearer s3cret"},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "authorization=Bearer%zzs3cret"},
		{"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "=s3cret"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://user:s3cret@[::1"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			cleanOTelEnv(t)
			t.Setenv(tc.env, tc.value)
			_, err := Start(context.Background(), Options{Mode: ModeOTLP})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.env)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}

// The description never shows URL credentials or query strings, and
// follows the exporters' defaults and INSECURE override.
func TestDescribeOTLPEndpoints(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   map[string]string
		proto string
		want  string
	}{
		{"http default", nil, protoHTTP, "https://localhost:4318/v1/traces"},
		{"grpc default", nil, protoGRPC, "https://localhost:4317"},
		{"insecure default", map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "true"}, protoHTTP, "http://localhost:4318/v1/traces"},
		{"base path joined", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example/prefix/"}, protoHTTP, "https://otel.example/prefix/v1/traces"},
		{"per-signal as is", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://a.example", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://b.example"}, protoHTTP, "https://b.example/"},
		{"credentials hidden", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:s3cret@otel.example?token=s3cret"}, protoHTTP, "https://otel.example/v1/traces (credentials/query not shown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cleanOTelEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got := otlpEndpoint(sigTraces, tc.proto)
			assert.Equal(t, tc.want, got)
			assert.False(t, strings.Contains(got, "s3cret"))
		})
	}
}
