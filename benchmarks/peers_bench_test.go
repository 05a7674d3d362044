package benchmarks_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

// TestMain lets the test binary double as the stdio demo server.
func TestMain(m *testing.M) {
	maybeServeScaleHTTP()
	peers.MaybeServe()
	os.Exit(m.Run())
}

// BenchmarkPeers is the peercompare workload as Go benchmarks, for
// profiling one client at a time (the server runs in a child process, so a
// -cpuprofile holds the client alone):
//
//	go test -run '^$' -bench 'Peers/mcpengine/inflight=64' -cpuprofile cpu.out
func BenchmarkPeers(b *testing.B) {
	command, args, err := peers.SelfServer()
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range peers.Kinds {
		for _, n := range []int{1, 32, 64} {
			b.Run(fmt.Sprintf("%s/inflight=%d", k.Name, n), func(b *testing.B) {
				ctx := context.Background()
				c, err := k.Dial(ctx, command, args)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				if _, err := peers.Drive(ctx, c, 500, n, nil); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := peers.ProcessCPU()
				if _, err := peers.Drive(ctx, c, b.N, n, nil); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(peers.ProcessCPU()-cpu0)/float64(b.N), "client-cpu-ns/op")
			})
		}
	}
}
