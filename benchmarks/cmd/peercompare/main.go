// Command peercompare runs the same stdio workload, tools/call echo
// {"text":"hello"} against demoserver, through a hand-written raw JSON-RPC
// loop, mcpengine, the official go-sdk and mcp-go, each against its own
// fresh server subprocess, at several in-flight levels, in interleaved
// rounds, and prints medians over the rounds.
//
// Client CPU is getrusage(RUSAGE_SELF) over each phase: only one client
// runs at a time and the server is a child process, so it is the client's
// CPU alone (GC included). Allocations are runtime.MemStats deltas.
//
//	go run ./cmd/peercompare -calls 20000 -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

func main() {
	peers.MaybeServe()

	calls := flag.Int("calls", 20000, "measured calls per phase")
	rounds := flag.Int("rounds", 3, "interleaved rounds; the table shows medians over them")
	warmup := flag.Int("warmup", 1000, "unmeasured calls per phase, after connecting")
	levels := flag.String("inflight", "1,32,64", "comma-separated numbers of calls in flight")
	only := flag.String("clients", "", "comma-separated client names (default all: "+names(peers.Kinds)+")")
	server := flag.String("server", "", "demo server binary (default: this binary re-executed as the server)")
	flag.Parse()

	inflight, err := parseInts(*levels)
	if err != nil || *calls <= 0 || *rounds <= 0 {
		fmt.Fprintln(os.Stderr, "peercompare: bad flags")
		os.Exit(2)
	}
	kinds := peers.Kinds
	if *only != "" {
		kinds = nil
		for _, n := range strings.Split(*only, ",") {
			i := slices.IndexFunc(peers.Kinds, func(k peers.Kind) bool { return k.Name == n })
			if i < 0 {
				fmt.Fprintf(os.Stderr, "peercompare: unknown client %q (have %s)\n", n, names(peers.Kinds))
				os.Exit(2)
			}
			kinds = append(kinds, peers.Kinds[i])
		}
	}
	command, args := *server, []string(nil)
	if command == "" {
		if command, args, err = peers.SelfServer(); err != nil {
			fmt.Fprintln(os.Stderr, "peercompare:", err)
			os.Exit(1)
		}
	}

	fmt.Printf("peercompare: %s %s/%s, GOMAXPROCS=%d, NumCPU=%d; %d calls/phase (+%d warmup), %d rounds, in flight %v\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU(),
		*calls, *warmup, *rounds, inflight)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	// results[level][kind] holds one Result per round.
	results := make([][][]peers.Result, len(inflight))
	for li := range inflight {
		results[li] = make([][]peers.Result, len(kinds))
	}
	for r := range *rounds {
		for li, n := range inflight {
			// Rotate the order every round so that no client always runs
			// first or right after the same neighbour.
			for j := range kinds {
				ki := (j + r) % len(kinds)
				res, err := peers.Phase(ctx, kinds[ki], command, args, *calls, n, *warmup)
				if err != nil {
					fmt.Fprintln(os.Stderr, "peercompare:", err)
					os.Exit(1)
				}
				results[li][ki] = append(results[li][ki], res)
			}
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done (%s)\n", r+1, *rounds, time.Since(start).Round(time.Second))
	}

	for li, n := range inflight {
		printLevel(n, kinds, results[li])
	}
	fmt.Printf("\ntotal run time %s\n", time.Since(start).Round(time.Second))
}

// summary is the per-metric median over rounds.
type summary struct {
	name                    string
	callsPerSec, cpuNs      float64
	allocs, bytes, p50, p99 float64
}

func summarize(name string, rs []peers.Result) summary {
	med := func(f func(peers.Result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return summary{
		name:        name,
		callsPerSec: med(peers.Result.CallsPerSec),
		cpuNs:       med(func(r peers.Result) float64 { return float64(r.CPUPerCall()) }),
		allocs:      med(peers.Result.AllocsPerCall),
		bytes:       med(peers.Result.BytesPerCall),
		p50:         med(func(r peers.Result) float64 { return float64(r.P50) }),
		p99:         med(func(r peers.Result) float64 { return float64(r.P99) }),
	}
}

func printLevel(inflight int, kinds []peers.Kind, rs [][]peers.Result) {
	sums := make([]summary, len(kinds))
	for i, k := range kinds {
		sums[i] = summarize(k.Name, rs[i])
	}
	find := func(name string) *summary {
		for i := range sums {
			if sums[i].name == name {
				return &sums[i]
			}
		}
		return nil
	}
	rawStd, rawSonic := find("raw-std"), find("raw-sonic")
	var bestPeer *summary // lowest client CPU per call of the two peers
	for _, n := range []string{"go-sdk", "mcp-go"} {
		if s := find(n); s != nil && (bestPeer == nil || s.cpuNs < bestPeer.cpuNs) {
			bestPeer = s
		}
	}

	fmt.Printf("\n== %d in flight (medians over rounds) ==\n", inflight)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tcalls/s\tcpu µs/call\tallocs/call\tB/call\tp50 µs\tp99 µs\tcpu÷raw-std\tcpu÷raw-sonic\tbest-peer cpu÷cpu\tcalls/s÷best-peer\t")
	ratio := func(num, den float64) string {
		if den == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", num/den)
	}
	for _, s := range sums {
		row := []string{
			s.name,
			fmt.Sprintf("%.0f", s.callsPerSec),
			fmt.Sprintf("%.2f", s.cpuNs/1e3),
			fmt.Sprintf("%.1f", s.allocs),
			fmt.Sprintf("%.0f", s.bytes),
			fmt.Sprintf("%.1f", s.p50/1e3),
			fmt.Sprintf("%.1f", s.p99/1e3),
			"-", "-", "-", "-",
		}
		if rawStd != nil {
			row[7] = ratio(s.cpuNs, rawStd.cpuNs)
		}
		if rawSonic != nil {
			row[8] = ratio(s.cpuNs, rawSonic.cpuNs)
		}
		if bestPeer != nil {
			row[9] = ratio(bestPeer.cpuNs, s.cpuNs)
			row[10] = ratio(s.callsPerSec, bestPeer.callsPerSec)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()

	if e := find("mcpengine"); e != nil {
		var raws []*summary
		for _, r := range []*summary{rawStd, rawSonic} {
			if r != nil {
				raws = append(raws, r)
			}
		}
		for _, r := range raws {
			q := e.cpuNs / r.cpuNs
			fmt.Printf("target: mcpengine cpu/call ≤ 1.15x %s: %.2fx  %s\n", r.name, q, verdict(q <= 1.15))
		}
		if bestPeer != nil {
			q := bestPeer.cpuNs / e.cpuNs
			fmt.Printf("target: mcpengine cpu/call ≥ 1.5x lower than best peer (%s): %.2fx  %s\n", bestPeer.name, q, verdict(q >= 1.5))
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "MET"
	}
	return "MISSED"
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func names(ks []peers.Kind) string {
	var n []string
	for _, k := range ks {
		n = append(n, k.Name)
	}
	return strings.Join(n, ",")
}
