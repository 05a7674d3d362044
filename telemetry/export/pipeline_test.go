package export

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/telemetry"
)

func TestExportOffIsZeroProviders(t *testing.T) {
	cleanOTelEnv(t)
	for _, mode := range []string{"", "off", " OFF "} {
		p, err := Start(context.Background(), Options{Mode: mode})
		require.NoError(t, err, mode)
		assert.Equal(t, telemetry.Providers{}, p.Providers, mode)
		assert.Equal(t, "telemetry: off", p.String())
		assert.Empty(t, p.PrometheusURL())
		require.NoError(t, p.Shutdown(context.Background()))
	}
}

func TestExportUnknownModeListsValidModes(t *testing.T) {
	_, err := Start(context.Background(), Options{Mode: "jaeger"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown export mode "jaeger": valid modes are off, otlp, stdout`)
}

func TestExportStdoutWritesSpanAndMetric(t *testing.T) {
	cleanOTelEnv(t)
	var out bytes.Buffer
	p, err := Start(context.Background(), Options{Mode: ModeStdout, Writer: &out})
	require.NoError(t, err)
	assert.Contains(t, p.String(), "telemetry: stdout")

	record(t, p.Providers, "stdout-span", "stdout.calls", 4)
	shutdown(t, p)

	assert.Contains(t, out.String(), `"Name": "stdout-span"`)
	assert.Contains(t, out.String(), `"Name": "stdout.calls"`)
	assert.Contains(t, out.String(), `"Value": "mcpengine"`, "the resource carries service.name")
	assert.Contains(t, out.String(), "{\n\t\"Name\": \"stdout-span\"", "pretty-printed")
}

// Shutdown is idempotent: a deferred Shutdown after an explicit one is
// harmless and reports the first result.
func TestExportShutdownTwice(t *testing.T) {
	cleanOTelEnv(t)
	var out bytes.Buffer
	p, err := Start(context.Background(), Options{Mode: ModeStdout, Writer: &out})
	require.NoError(t, err)
	shutdown(t, p)
	shutdown(t, p)
}
