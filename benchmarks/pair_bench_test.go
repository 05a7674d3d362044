package benchmarks_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

// pairChunk is how many calls one client makes before the other takes its
// turn, at the least: small enough that both see the same machine load,
// large enough that a turn is not dominated by its first and last calls
// (a turn is at least ten times the calls in flight).
const pairChunk = 1000

// BenchmarkPeerPairs runs mcpengine and the raw loop of one HTTP call row
// against the same go-sdk server in alternating turns of pairChunk calls,
// and reports the ratio of their client CPU per call (cpu-ratio) and of
// their throughput (calls/s mcpengine ÷ raw, thr-ratio). On a machine shared
// with other work, the peercompare rows move by ±20 % from run to run;
// alternating turns within one process lets both clients see the same load,
// so the ratio moves far less:
//
//	go test -run '^$' -bench 'PeerPairs/http-1x64' -benchtime 20000x -count 5
func BenchmarkPeerPairs(b *testing.B) {
	for _, name := range []string{"http-1x64", "http-100x4"} {
		sc, _ := peers.ScenarioNamed(name)
		b.Run(name, func(b *testing.B) { benchmarkPair(b, sc) })
	}
}

func benchmarkPair(b *testing.B, sc peers.Scenario) {
	ctx := context.Background()
	srv, err := peers.StartHTTPServer(false)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	var sides [2]pairSide // raw, mcpengine
	for i, name := range []string{"raw", "mcpengine"} {
		k, _ := peers.KindNamed(name)
		lib := k.New(srv.Target(sc.Version))
		defer lib.Close()
		clients, err := peers.OpenSessions(ctx, lib, sc.Sessions)
		if err != nil {
			b.Fatal(err)
		}
		defer peers.CloseSessions(clients)
		sides[i].clients = clients
		if _, err := peers.Drive(ctx, clients, 2*max(pairChunk, 10*sc.Sessions*sc.InFlight), sc.InFlight, nil); err != nil {
			b.Fatal(err)
		}
	}
	chunk := max(pairChunk, 10*sc.Sessions*sc.InFlight)
	runtime.GC()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		n := min(chunk, b.N-done)
		for i := range sides {
			if err := sides[i].turn(ctx, n, sc.InFlight); err != nil {
				b.Fatal(err)
			}
		}
	}
	raw, eng := sides[0], sides[1]
	b.ReportMetric(float64(eng.cpu)/float64(raw.cpu), "cpu-ratio")
	b.ReportMetric(float64(raw.wall)/float64(eng.wall), "thr-ratio")
	b.ReportMetric(float64(raw.cpu)/float64(b.N), "raw-cpu-ns/op")
	b.ReportMetric(float64(eng.cpu)/float64(b.N), "engine-cpu-ns/op")
}

// pairSide is one client's sessions and what its turns cost.
type pairSide struct {
	clients   []peers.Client
	cpu, wall time.Duration
}

func (s *pairSide) turn(ctx context.Context, calls, inFlight int) error {
	cpu0 := peers.ProcessCPU()
	wall, err := peers.Drive(ctx, s.clients, calls, inFlight, nil)
	s.cpu += peers.ProcessCPU() - cpu0
	s.wall += wall
	if err != nil {
		return fmt.Errorf("%d calls: %w", calls, err)
	}
	return nil
}
