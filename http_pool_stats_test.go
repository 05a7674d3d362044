package mcpengine_test

import (
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// A server's HTTP/1.1 connections are capped by ServerConfig.MaxConnections:
// calls beyond the cap wait for a connection and all succeed, and
// Engine.HTTPStats and the telemetry show the cap, the connections and
// the calls that waited.
func TestHTTPCallsBeyondTheServersCapWaitAndShowInStatsAndMetrics(t *testing.T) {
	const maxConns, calls = 2, 6
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{})
	e, _, reader := telemetryEngine(t, telemetry.Options{})
	ctx := testCtx(t, 60*time.Second)
	server := mcpengine.ServerConfig{URL: hs.StreamableURL(), Type: "streamable-http", MaxConnections: maxConns}
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "capped", Server: server})
	require.NoError(t, err)

	// Calls that outlast their start: all of them are in flight at once
	// unless the machine takes seconds to start six goroutines.
	var wg sync.WaitGroup
	for range calls {
		wg.Add(1)
		go func() { // Owner: this test. Exits when its call returned.
			defer wg.Done()
			_, err := s.CallTool(ctx, "sleep", map[string]any{"ms": 1500})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()

	u, err := url.Parse(hs.StreamableURL())
	require.NoError(t, err)
	st := e.HTTPStats()
	require.Len(t, st, 1)
	assert.Equal(t, "http://"+u.Host, st[0].Origin)
	assert.Equal(t, maxConns, st[0].MaxConnections)
	assert.LessOrEqual(t, st[0].Connections, int64(maxConns))
	assert.Positive(t, st[0].Connections)
	assert.LessOrEqual(t, st[0].Dials, uint64(maxConns), "no dial past the cap")
	assert.GreaterOrEqual(t, st[0].ConnectionWaits, uint64(calls-maxConns), "the calls beyond the cap waited")
	assert.Zero(t, st[0].Waiting)

	found := collectMetrics(t, ctx, reader)
	gauge := func(name string) int64 {
		g, ok := found[name].(metricdata.Gauge[int64])
		require.True(t, ok, "%s: metrics %v", name, keys(found))
		require.Len(t, g.DataPoints, 1)
		addr, _ := g.DataPoints[0].Attributes.Value("server.address")
		assert.Equal(t, u.Hostname(), addr.AsString())
		return g.DataPoints[0].Value
	}
	assert.EqualValues(t, maxConns, gauge(telemetry.MetricHTTPConnectionLimit))
	assert.Positive(t, gauge(telemetry.MetricHTTPConnections))
	waits, ok := found[telemetry.MetricHTTPConnectionWaits].(metricdata.Sum[int64])
	require.True(t, ok)
	require.Len(t, waits.DataPoints, 1)
	assert.GreaterOrEqual(t, waits.DataPoints[0].Value, int64(calls-maxConns))
}

// Without MaxConnections a server's HTTP/1.1 pool has the default cap;
// a client the application passed in has no stats of the engine's.
func TestHTTPStatsDefaultCapAndApplicationClients(t *testing.T) {
	_, hs := demoHTTP(t, demoserver.Options{}, demoserver.HTTPOptions{})
	ctx := testCtx(t, 30*time.Second)
	e := newEngine(t, mcpengine.Config{})
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "default", Server: mcpengine.ServerConfig{URL: hs.StreamableURL()}})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "hi"})
	require.NoError(t, err)
	st := e.HTTPStats()
	require.Len(t, st, 1)
	assert.True(t, strings.HasPrefix(st[0].Origin, "http://127.0.0.1:"))
	assert.Equal(t, httpx.DefaultMaxConnsPerHost, st[0].MaxConnections)
	assert.Positive(t, st[0].Dials)

	app := newEngine(t, mcpengine.Config{HTTPClient: httpx.NewClient(httpx.ClientOptions{})})
	s, err = app.Connect(ctx, mcpengine.SessionConfig{Name: "app", Server: mcpengine.ServerConfig{URL: hs.StreamableURL()}})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Empty(t, app.HTTPStats(), "the application's client is its own")
}
