package export

import "testing"

// otelEnv is every variable that changes what Start builds. Tests set them
// all (empty counts as unset, for Start and the exporters alike) so a
// developer's own OTEL_* settings cannot leak into a test.
var otelEnv = []string{
	"OTEL_SERVICE_NAME",
	"OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_METRIC_EXPORT_INTERVAL",
	"OTEL_METRICS_EXEMPLAR_FILTER",
	"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
}

func init() {
	for _, sig := range []string{"", "TRACES_", "METRICS_"} {
		for _, k := range []string{"ENDPOINT", "HEADERS", "PROTOCOL", "INSECURE", "COMPRESSION", "TIMEOUT", "CERTIFICATE", "CLIENT_CERTIFICATE", "CLIENT_KEY"} {
			otelEnv = append(otelEnv, "OTEL_EXPORTER_OTLP_"+sig+k)
		}
	}
}

func cleanOTelEnv(t *testing.T) {
	t.Helper()
	for _, k := range otelEnv {
		t.Setenv(k, "")
	}
}
