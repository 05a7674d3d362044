//go:build !race

package gateway_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
)

// BenchmarkClusterGatewayHop measures what sharing upstream sessions
// through the cluster adds to a call through the gateway, in one run: the
// same tools/call echo through /mcp by the engine's client, one call in
// flight, made in turn
//
//   - local: a gateway with sessions of its own (no cluster);
//   - owner: a cluster gateway that owns the shared session;
//   - remote: a cluster gateway whose session another member owns.
//
// It reports each path's p50 and p99 in microseconds. Both cluster
// gateways run in this process (their remote is loopback gRPC).
//
//	go test -run '^$' -bench ClusterGatewayHop -benchtime 3000x ./gateway/
func BenchmarkClusterGatewayHop(b *testing.B) {
	_, up := demoHTTP(b, demoserver.Options{})
	_, local := startGateway(b, gateway.Config{Servers: map[string]gateway.Server{
		"demo": {Target: mcpengine.ServerConfig{URL: up.StreamableURL(), Type: "streamable-http"}},
	}})
	gs, hss := clusterGateways(b, 2, up.StreamableURL())
	owner := -1
	eventually(b, 20*time.Second, func() bool {
		for i, g := range gs {
			h := g.Health()
			if s := h.Servers["demo"].Sessions[0]; s.State == "ready" && s.Owner == h.Cluster.Address {
				owner = i
			}
		}
		return owner >= 0
	}, "a gateway owns the session")
	e := clientEngine(b, mcpengine.Config{})
	ctx := testCtx(b, time.Hour)
	paths := []*mcpengine.Session{connect(b, e, "local", local, ""), connect(b, e, "owner", hss[owner], ""), connect(b, e, "remote", hss[1-owner], "")}
	args := map[string]any{"text": "hop"}
	call := func(s *mcpengine.Session) error {
		res, err := s.CallTool(ctx, "demo__echo", args)
		if err == nil && res.IsError {
			b.Fatalf("tool error: %v", res.Content)
		}
		return err
	}
	for range 50 {
		for _, s := range paths {
			require.NoError(b, call(s))
		}
	}
	ds := make([][]time.Duration, len(paths))
	b.ResetTimer()
	for b.Loop() {
		for i, s := range paths {
			t0 := time.Now()
			if err := call(s); err != nil {
				b.Fatal(err)
			}
			ds[i] = append(ds[i], time.Since(t0))
		}
	}
	b.StopTimer()
	for i, name := range []string{"local", "owner", "remote"} {
		p50, p99 := percentiles(ds[i])
		b.ReportMetric(p50, name+"-p50-µs")
		b.ReportMetric(p99, name+"-p99-µs")
	}
}
