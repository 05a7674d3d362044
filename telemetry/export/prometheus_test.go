package export

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scrape GETs url on a connection of its own, so no keep-alive connection
// (and goroutine) outlives the test.
func scrape(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

func TestPrometheusServesCounterAndStopReleasesThePort(t *testing.T) {
	cleanOTelEnv(t)
	p, err := Start(context.Background(), Options{PrometheusAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	assert.Nil(t, p.Providers.Tracer, "Prometheus alone is metrics only")
	url := p.PrometheusURL()
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/metrics$`, url)
	assert.Contains(t, p.String(), "telemetry: prometheus metrics at "+url)

	record(t, p.Providers, "unused", "prom.requests", 7)
	body := scrape(t, url)
	assert.Regexp(t, regexp.MustCompile(`(?m)^prom_requests_total\{[^}]*\} 7$`), body)
	assert.Regexp(t, regexp.MustCompile(`(?m)^target_info\{[^}]*service_name="mcpengine"`), body)
	assert.Contains(t, body, "go_goroutines", "runtime metrics on the same registry")

	addr := p.prom.Addr()
	shutdown(t, p)
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err, "Stop releases the port")
	require.NoError(t, ln.Close())
}

// --otel and --prometheus at once: one MeterProvider, both readers see the
// same counter.
func TestExportStdoutAndPrometheusShareTheMeter(t *testing.T) {
	cleanOTelEnv(t)
	var out bytes.Buffer
	p, err := Start(context.Background(), Options{Mode: ModeStdout, Writer: &out, PrometheusAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	assert.NotNil(t, p.Providers.Tracer)

	record(t, p.Providers, "both-span", "both.calls", 11)
	assert.Regexp(t, regexp.MustCompile(`(?m)^both_calls_total\{[^}]*\} 11$`), scrape(t, p.PrometheusURL()))
	shutdown(t, p)
	assert.Contains(t, out.String(), `"Name": "both.calls"`)
	assert.Contains(t, out.String(), `"Name": "both-span"`)
}

func TestPrometheusListenAddrIsLoopbackUnlessAllowed(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		allow bool
		want  string // "" = refused
	}{
		{"9464", false, "127.0.0.1:9464"},
		{":9464", false, "127.0.0.1:9464"},
		{":9464", true, "127.0.0.1:9464"},
		{"localhost:9464", false, "localhost:9464"},
		{"127.0.0.2:9464", false, "127.0.0.2:9464"},
		{"[::1]:9464", false, "[::1]:9464"},
		{"0.0.0.0:9464", false, ""},
		{"[::]:9464", false, ""},
		{"192.0.2.1:9464", false, ""},
		{"metrics.example:9464", false, ""},
		{"0.0.0.0:9464", true, "0.0.0.0:9464"},
		{"metrics.example:9464", true, "metrics.example:9464"},
		{"no-port", true, ""},
	} {
		got, err := prometheusListenAddr(tc.addr, tc.allow)
		if tc.want == "" {
			assert.Error(t, err, tc.addr)
			continue
		}
		require.NoError(t, err, tc.addr)
		assert.Equal(t, tc.want, got, tc.addr)
	}
}

// A refused or unavailable address fails Start before anything starts
// (goleak checks nothing is left running).
func TestExportPrometheusAddressErrors(t *testing.T) {
	cleanOTelEnv(t)
	_, err := Start(context.Background(), Options{Mode: ModeStdout, Writer: io.Discard, PrometheusAddr: "0.0.0.0:0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not loopback")

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	_, err = Start(context.Background(), Options{Mode: ModeStdout, Writer: io.Discard, PrometheusAddr: busy.Addr().String()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "prometheus listen")
}
