package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
)

// BenchmarkGatewayHop measures what the gateway adds to a call, in one
// run: the same tools/call echo to the same server (the demo server over
// Streamable HTTP on loopback), one call in flight, made in turn
//
//   - direct: by the engine's client, straight to the server;
//   - mcp: by the engine's client, through the gateway's aggregated
//     endpoint (client → gateway → the gateway's session → server);
//   - rpc: by a plain net/http client, through the routing protocol.
//
// It reports each path's p50 and p99 in microseconds and the hop's added
// p50 and p99 (mcp minus direct). ns/op covers the three calls.
//
//	go test -run '^$' -bench GatewayHop -benchtime 3000x ./gateway/
func BenchmarkGatewayHop(b *testing.B) {
	_, up := demoHTTP(b, demoserver.Options{})
	_, gw := startGateway(b, gateway.Config{Servers: map[string]gateway.Server{
		"demo": {Target: mcpengine.ServerConfig{URL: up.StreamableURL(), Type: "streamable-http"}},
	}})
	e := clientEngine(b, mcpengine.Config{})
	ctx := testCtx(b, time.Hour)
	direct, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "direct", Server: mcpengine.ServerConfig{URL: up.StreamableURL(), Type: "streamable-http"}})
	require.NoError(b, err)
	via := connect(b, e, "via", gw, "")
	args := map[string]any{"text": "hop"}
	rpcBody := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hop"}},"server_id":"demo"}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	rpc := func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, gw.RouteURL(), bytes.NewReader(rpcBody))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err == nil && !strings.Contains(string(body), `"result"`) {
			b.Fatalf("rpc: %s", body)
		}
		return err
	}
	call := func(s *mcpengine.Session) error {
		name := "demo__echo" // the gateway's name for it
		if s == direct {
			name = "echo"
		}
		res, err := s.CallTool(ctx, name, args)
		if err == nil && res.IsError {
			b.Fatalf("tool error: %v", res.Content)
		}
		return err
	}
	// Warm every path up (connections, caches) before measuring.
	for range 50 {
		require.NoError(b, call(direct))
		require.NoError(b, call(via))
		require.NoError(b, rpc())
	}

	var dDirect, dMCP, dRPC []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if err := call(direct); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := call(via); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := rpc(); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		dDirect, dMCP, dRPC = append(dDirect, t1.Sub(t0)), append(dMCP, t2.Sub(t1)), append(dRPC, t3.Sub(t2))
	}
	b.StopTimer()
	pd50, pd99 := percentiles(dDirect)
	pm50, pm99 := percentiles(dMCP)
	pr50, pr99 := percentiles(dRPC)
	b.ReportMetric(pd50, "direct-p50-µs")
	b.ReportMetric(pd99, "direct-p99-µs")
	b.ReportMetric(pm50, "mcp-p50-µs")
	b.ReportMetric(pm99, "mcp-p99-µs")
	b.ReportMetric(pr50, "rpc-p50-µs")
	b.ReportMetric(pr99, "rpc-p99-µs")
	b.ReportMetric(pm50-pd50, "added-p50-µs")
	b.ReportMetric(pm99-pd99, "added-p99-µs")
}

// percentiles returns the p50 and p99 of ds in microseconds (nearest
// rank).
func percentiles(ds []time.Duration) (p50, p99 float64) {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := int(p*float64(len(s))+0.5) - 1
		i = min(max(i, 0), len(s)-1)
		return float64(s[i].Nanoseconds()) / 1e3
	}
	return at(0.50), at(0.99)
}
