package main

import (
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkLoadOneHostVsMembers is what the cluster costs per call: the
// same open-model load (rate, count, sessions) against one engine serve
// over Streamable HTTP, from one engine load and from three engine worker
// members on this machine with an engine load --join coordinator.
// Metrics: calls/s (the run's, as its report says), the load
// generators' CPU per call during the run (the report's client CPU: the
// one process, or the three members together), and for the cluster the
// coordinator process's whole CPU per call (joining, merging, reports).
//
//	go test ./cmd/engine -run '^$' -bench LoadOneHostVsMembers -benchtime 3x
func BenchmarkLoadOneHostVsMembers(b *testing.B) {
	const rate, count = 1500, 7500
	srv := startServe(b, "http")
	shape := []string{"--url", srv.url, "-r", strconv.Itoa(rate), "-n", strconv.Itoa(count), "-s", "6", "-c", "8", "-q"}

	run := func(b *testing.B, extra ...string) {
		var calls, cpu, coordCPU, secs float64
		for range b.N {
			out := filepath.Join(b.TempDir(), "r.json")
			r := runEngine(b.Context(), append(append([]string{"load", "-O", "json=" + out}, shape...), extra...)...)
			if r.code != 0 {
				b.Fatalf("engine load: %d\n%s", r.code, r.stderr)
			}
			rep := readReportTB(b, out)
			calls += float64(rep.Calls)
			secs += rep.Seconds
			cpu += rep.Client.CPUSeconds
			coordCPU += r.cpu.Seconds()
		}
		b.ReportMetric(calls/secs, "calls/s")
		b.ReportMetric(cpu/calls*1e6, "gen-cpu-µs/call")
		if len(extra) > 0 {
			b.ReportMetric(coordCPU/calls*1e6, "coord-cpu-µs/call")
		} else {
			b.ReportMetric(coordCPU/calls*1e6, "process-cpu-µs/call")
		}
	}
	b.Run("one-host", func(b *testing.B) { run(b) })
	b.Run("three-members", func(b *testing.B) {
		_, join := startLoadWorkers(b, 3)
		run(b, "--join", join)
	})
}
