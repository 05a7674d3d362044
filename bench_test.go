package mcpengine_test

// Benchmarks of the engine's call path and of idle sessions' benchFootprint.
//
//	go test -run '^$' -bench . -benchtime 20000x .
//
// Peers (go-sdk, mcp-go) and a hand-written raw client are compared in the
// separate benchmarks/ module (benchmarks/README.md).

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// benchEngine returns an engine with cfg, closed at the end of the benchmark.
func benchEngine(b *testing.B, cfg mcpengine.Config) *mcpengine.Engine {
	e := mcpengine.New(cfg)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			b.Errorf("engine close: %v", err)
		}
	})
	return e
}

// benchDriveEcho makes calls echo calls on s from inFlight goroutines, each
// taking the next call until all are taken.
func benchDriveEcho(b *testing.B, s *mcpengine.Session, calls, inFlight int) {
	ctx := context.Background()
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() && next.Add(1) <= int64(calls) {
				res, err := s.CallTool(ctx, "echo", map[string]any{"text": "hello"})
				if err == nil && (res.IsError || len(res.Content) != 1 || res.Content[0].Text != "hello") {
					err = fmt.Errorf("unexpected echo result %+v", res)
				}
				if err != nil {
					if failed.CompareAndSwap(false, true) {
						b.Error(err)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
}

// benchProcessCPU is this process's user+system CPU time (all threads).
func benchProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchInFlightLevels = []int{1, 64}

// benchEcho measures tools/call echo on s with inFlight calls in flight,
// after a warm-up, and reports this process's CPU per call as cpuMetric.
func benchEcho(b *testing.B, s *mcpengine.Session, inFlight int, cpuMetric string) {
	benchDriveEcho(b, s, 1000, inFlight) // warm up pools and codecs
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := benchProcessCPU()
	benchDriveEcho(b, s, b.N, inFlight)
	b.ReportMetric(float64(benchProcessCPU()-cpu0)/float64(b.N), cpuMetric)
}

// BenchmarkCallMemory: one session over the in-memory transport to an
// in-process demoserver, tools/call echo at 1 and 64 calls in flight.
// The server runs in this process, so ns/op, allocs/op and B/op include
// the server's work (decode, dispatch, encode) and cannot be split into a
// client and a server share; "process-cpu-ns/op" is client+server CPU.
// BenchmarkCallStdio and benchmarks/cmd/peercompare measure the client
// alone.
func BenchmarkCallMemory(b *testing.B) {
	for _, n := range benchInFlightLevels {
		b.Run(fmt.Sprintf("inflight=%d", n), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := demoserver.New(demoserver.Options{})
			e := benchEngine(b, mcpengine.Config{})
			s, err := e.Connect(ctx, mcpengine.SessionConfig{
				Name:   "mem",
				Dialer: memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) }),
			})
			if err != nil {
				b.Fatal(err)
			}
			benchEcho(b, s, n, "process-cpu-ns/op")
		})
	}
}

// BenchmarkCallStdio: one session over stdio to an `engine serve`
// subprocess, tools/call echo at 1 and 64 calls in flight. The server is
// another process, so allocs/op, B/op and "client-cpu-ns/op" (getrusage
// RUSAGE_SELF user+sys over the loop, GC included) are the client's alone.
func BenchmarkCallStdio(b *testing.B) {
	benchCallStdio(b, func(*testing.B) mcpengine.Config { return mcpengine.Config{} })
}

// BenchmarkCallStdioModern is BenchmarkCallStdio in protocol 2026-07-28:
// the per-request _meta spliced into every request.
func BenchmarkCallStdioModern(b *testing.B) {
	benchCallStdio(b, func(*testing.B) mcpengine.Config { return mcpengine.Config{} }, "--era", "modern")
}

// benchCallStdio is BenchmarkCallStdio with the engine config cfg returns
// for each sub-benchmark, against engine serve with serveArgs.
func benchCallStdio(b *testing.B, cfg func(b *testing.B) mcpengine.Config, serveArgs ...string) {
	for _, n := range benchInFlightLevels {
		b.Run(fmt.Sprintf("inflight=%d", n), func(b *testing.B) {
			e := benchEngine(b, cfg(b))
			s, err := e.Connect(context.Background(), mcpengine.SessionConfig{Name: "stdio", Server: engineServe(serveArgs...)})
			if err != nil {
				b.Fatal(err)
			}
			benchEcho(b, s, n, "client-cpu-ns/op")
		})
	}
}

// benchIdleServer is the cheapest server a memory session can have: it refuses
// the era probe, answers initialize and then only reads (dropping everything) until the client
// closes. It runs in the one goroutine the memory dialer starts per
// session and keeps nothing on the heap.
func benchIdleServer(conn transport.Conn) {
	for {
		frame, err := conn.ReadFrame()
		if err != nil {
			return
		}
		m, err := messages.DecodeMessage(frame)
		if err == nil && m.Kind == messages.KindRequest && m.Method == messages.MethodServerDiscover {
			// A legacy server: the era probe is refused at once.
			if conn.WriteFrames(messages.AppendError(nil, m.ID, messages.ErrMethodNotFound)) != nil {
				return
			}
			continue
		}
		if err != nil || m.Kind != messages.KindRequest || m.Method != messages.MethodInitialize {
			continue
		}
		var p messages.InitializeParams
		_ = messages.Unmarshal(m.Params, &p)
		res, err := messages.Marshal(&messages.InitializeResult{
			ProtocolVersion: p.ProtocolVersion,
			ServerInfo:      messages.Implementation{Name: "idle", Version: "1"},
		})
		if err != nil {
			return
		}
		if conn.WriteFrames(messages.AppendResult(nil, m.ID, res)) != nil {
			return
		}
	}
}

// benchFootprint is the process's live heap, goroutine stacks and goroutine
// count after two full GCs.
type benchFootprint struct {
	heap, stack uint64
	goroutines  int
}

func benchMeasureFootprint() benchFootprint {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return benchFootprint{heap: ms.HeapAlloc, stack: ms.StackInuse, goroutines: runtime.NumGoroutine()}
}

// benchOpenIdle opens n sessions (concurrently connecting) and waits until all
// are ready.
func benchOpenIdle(b *testing.B, e *mcpengine.Engine, n int, sc func(i int) mcpengine.SessionConfig) []*mcpengine.Session {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ss := make([]*mcpengine.Session, n)
	for i := range ss {
		s, err := e.Open(ctx, sc(i))
		if err != nil {
			b.Fatal(err)
		}
		ss[i] = s
	}
	for _, s := range ss {
		if err := s.WaitReady(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// Idle means idle: let the engine's shared workers, busy during the
	// connect storm, reach their idle timeout and exit.
	time.Sleep(actors.DefaultWorkerIdle + 250*time.Millisecond)
	return ss
}

func benchCloseAll(b *testing.B, ss []*mcpengine.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Close(ctx); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkIdleSessions measures what an idle, ready session costs the
// client, per session:
//
//   - memory/sessions=N: N sessions over in-memory pipes to benchIdleServer. The
//     heap figure includes the pipe (both directions' queues, the
//     transport's own state) and whatever benchIdleServer keeps (nothing); the
//     one server goroutine per session (the memory dialer's) is subtracted
//     from goroutines/session, and its stack (a few KiB) is counted in
//     stack-bytes/session, which is therefore an upper bound for the client.
//   - stdio/sessions=50: 50 `engine serve` subprocesses; nothing of the server
//     is in this process, so every figure is the client's (exec.Cmd, pipes,
//     reader buffers, the stderr watch, the actor, Shared state).
//
// heap-bytes/session is the HeapAlloc delta after GC over the engine with
// no sessions (after one warm-up session was opened and closed);
// stack-bytes/session the StackInuse delta (approximate: freed stacks are
// cached by the runtime). Targets for stdio:
// at most 2 goroutines and 8 KiB (heap + client stacks) per idle session.
// ns/op is the wall time to open the N sessions (Open all, then WaitReady
// all) divided by N. At most benchIdleRounds rounds are measured per run
// whatever -benchtime says; the figures are the last round's.
func BenchmarkIdleSessions(b *testing.B) {
	b.Run("stdio/sessions=50", func(b *testing.B) {
		server := engineServe()
		benchIdle(b, 50, 0, func(i int) mcpengine.SessionConfig {
			return mcpengine.SessionConfig{Name: fmt.Sprint("idle-", i), Server: server}
		})
	})
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("memory/sessions=%d", n), func(b *testing.B) {
			dialer := memory.NewDialer("idle", benchIdleServer)
			benchIdle(b, n, 1, func(i int) mcpengine.SessionConfig {
				return mcpengine.SessionConfig{Name: fmt.Sprint("idle-", i), Dialer: dialer}
			})
		})
	}
}

// benchWriteHeapProfile writes a heap profile to the file named by
// $MCPENGINE_BENCH_HEAPPROFILE, suffixed with the benchmark name and when
// ("before" the sessions are opened, "after"), if that is set. Run with
// -memprofilerate=1 to see every allocation, and diff the two:
//
//	MCPENGINE_BENCH_HEAPPROFILE=/tmp/idle go test -run '^$' -bench 'IdleSessions/stdio' -memprofilerate=1 .
//	go tool pprof -sample_index=inuse_space -top -diff_base /tmp/idle.stdio_sessions=50.before /tmp/idle.stdio_sessions=50.after
func benchWriteHeapProfile(b *testing.B, when string) {
	base := os.Getenv("MCPENGINE_BENCH_HEAPPROFILE")
	if base == "" {
		return
	}
	name := strings.NewReplacer("BenchmarkIdleSessions/", "", "/", "_").Replace(b.Name())
	f, err := os.Create(base + "." + name + "." + when)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// benchIdleRounds bounds the measured rounds per run: a round opens
// thousands of sessions, so a package-wide -benchtime=20000x must not repeat
// it 20000 times. Further b.Loop iterations do nothing.
const benchIdleRounds = 3

// benchIdle opens n sessions per round and reports the last round's
// footprint per session; serverGoroutines is subtracted per session from the
// goroutine count.
func benchIdle(b *testing.B, n, serverGoroutines int, sc func(i int) mcpengine.SessionConfig) {
	var heap, stack, goroutines float64
	var opening time.Duration
	rounds := 0
	for b.Loop() {
		if rounds == benchIdleRounds {
			continue
		}
		rounds++
		e := mcpengine.New(mcpengine.Config{})
		// One session opened and closed first, so that one-time costs
		// (sonic's compiled codecs, pools, the registry's first entries)
		// are in the baseline rather than spread over the n sessions.
		benchCloseAll(b, benchOpenIdle(b, e, 1, func(int) mcpengine.SessionConfig { return sc(n) }))
		before := benchMeasureFootprint()
		benchWriteHeapProfile(b, "before")
		t0 := time.Now()
		ss := benchOpenIdle(b, e, n, sc)
		opening += time.Since(t0)
		// Let the handshakes' last messages and callbacks settle.
		time.Sleep(100 * time.Millisecond)
		after := benchMeasureFootprint()
		benchWriteHeapProfile(b, "after")
		heap = (float64(after.heap) - float64(before.heap)) / float64(n)
		stack = (float64(after.stack) - float64(before.stack)) / float64(n)
		goroutines = float64(after.goroutines-before.goroutines)/float64(n) - float64(serverGoroutines)
		benchCloseAll(b, ss)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := e.Close(ctx); err != nil {
			b.Error(err)
		}
		cancel()
	}
	b.ReportMetric(float64(opening)/float64(rounds*n), "ns/op")
	b.ReportMetric(heap, "heap-bytes/session")
	b.ReportMetric(stack, "stack-bytes/session")
	b.ReportMetric(goroutines, "goroutines/session")
}
