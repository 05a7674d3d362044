package benchmarks_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

// TestMain lets the test binary double as the Go SDK echo server (stdio
// and Streamable HTTP).
func TestMain(m *testing.M) {
	maybeServeScaleHTTP()
	peers.MaybeServe()
	os.Exit(m.Run())
}

// BenchmarkPeers is the peercompare workload of the one-session rows as Go
// benchmarks, for profiling one client at a time (the server runs in a
// child process, so a -cpuprofile holds the client alone):
//
//	go test -run '^$' -bench 'Peers/modern-stdio-1x64/mcpengine' -cpuprofile cpu.out
func BenchmarkPeers(b *testing.B) {
	for _, sc := range peers.Scenarios {
		if sc.Idle || sc.Sessions != 1 {
			continue
		}
		for _, k := range peers.Kinds {
			if !k.SpeaksVersion(sc.Version) {
				continue
			}
			b.Run(fmt.Sprintf("%s/%s", sc.Name, k.Name), func(b *testing.B) { benchmarkPeer(b, sc, k) })
		}
	}
}

func benchmarkPeer(b *testing.B, sc peers.Scenario, k peers.Kind) {
	ctx := context.Background()
	t, err := peers.StdioTarget(sc.Version)
	if sc.HTTP {
		var srv *peers.HTTPServer
		srv, err = peers.StartHTTPServer(sc.Version == peers.Modern)
		if err == nil {
			defer srv.Close()
			t = srv.Target(sc.Version)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	lib := k.New(t)
	defer lib.Close()
	c, err := lib.Open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	clients := []peers.Client{c}
	if _, err := peers.Drive(ctx, clients, 500, sc.InFlight, nil); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := peers.ProcessCPU()
	if _, err := peers.Drive(ctx, clients, b.N, sc.InFlight, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(peers.ProcessCPU()-cpu0)/float64(b.N), "client-cpu-ns/op")
}
