package mcpengine_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// BenchmarkFairness: N in-process sessions (memory transport, one demo
// server), each keeping one tools/call echo in flight for a window
// (MCPENGINE_FAIRNESS_SECONDS, default 10 s). It reports whether every
// session made progress in every second of it, and the spread:
//
//   - calls/s: all sessions together;
//   - idlest/mean: the calls of the session that made the fewest, over
//     the mean (target ≥ 0.25);
//   - busiest/mean;
//   - starved-session-seconds: (session, second) pairs without a single
//     completed call (target 0);
//   - p99.9-ms, max-ms: call latency.
//
// Run one iteration: go test -run '^$' -bench Fairness -benchtime 1x .
func BenchmarkFairness(b *testing.B) {
	window := 10 * time.Second
	if v, err := strconv.Atoi(os.Getenv("MCPENGINE_FAIRNESS_SECONDS")); err == nil && v > 0 {
		window = time.Duration(v) * time.Second
	}
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			for range b.N {
				fairnessRun(b, n, window)
			}
		})
	}
}

func fairnessRun(b *testing.B, n int, window time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := demoserver.New(demoserver.Options{})
	dialer := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) })
	e := benchEngine(b, mcpengine.Config{RequestTimeout: 2 * window})
	sessions := make([]*mcpengine.Session, n)
	for i := range sessions {
		s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("f", i), Dialer: dialer})
		if err != nil {
			b.Fatal(err)
		}
		sessions[i] = s
	}
	seconds := int(window / time.Second)
	// perSecond[i][k]: calls session i completed in second k of the window.
	perSecond := make([][]int32, n)
	latencies := make([][]time.Duration, n)
	start := time.Now()
	end := start.Add(window)
	args := map[string]any{"text": "x"}
	var wg sync.WaitGroup
	b.ResetTimer()
	for i, s := range sessions {
		perSecond[i] = make([]int32, seconds)
		wg.Add(1)
		// Owner: this benchmark; exits at the end of the window.
		go func() {
			defer wg.Done()
			for {
				sent := time.Now()
				if !sent.Before(end) {
					return
				}
				_, err := s.CallTool(ctx, "echo", args)
				done := time.Now()
				if err != nil {
					b.Errorf("session %d: %v", i, err)
					return
				}
				latencies[i] = append(latencies[i], done.Sub(sent))
				if k := int(done.Sub(start) / time.Second); k < seconds {
					perSecond[i][k]++
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()

	totals := make([]int, n)
	starved, total := 0, 0
	for i := range perSecond {
		for _, c := range perSecond[i] {
			totals[i] += int(c)
			if c == 0 {
				starved++
			}
		}
		total += totals[i]
	}
	mean := float64(total) / float64(n)
	all := slices.Concat(latencies...)
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(p*float64(len(all))))]
	}
	b.ReportMetric(float64(total)/window.Seconds(), "calls/s")
	b.ReportMetric(float64(slices.Min(totals))/mean, "idlest/mean")
	b.ReportMetric(float64(slices.Max(totals))/mean, "busiest/mean")
	b.ReportMetric(float64(starved), "starved-session-seconds")
	b.ReportMetric(float64(pct(0.999))/1e6, "p99.9-ms")
	b.ReportMetric(float64(all[len(all)-1])/1e6, "max-ms")
}
