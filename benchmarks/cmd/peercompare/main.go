// Command peercompare runs one workload, tools/call echo {"text":"hello"}
// against the official Go SDK (v1.8.0) server, through the official go-sdk
// client, mcp-go, a hand-written raw JSON-RPC loop (encoding/json, and the
// same with mcpengine's sonic codec) and mcpengine, in the rows of issues
// 17 and 14: stdio and Streamable HTTP at several sessions × calls in
// flight, idle sessions, and the 2026-07-28 rows. Each client runs alone
// against its own fresh server child process, in interleaved rounds whose
// client order rotates, and the table shows medians over the rounds.
//
// Client CPU is getrusage(RUSAGE_SELF) over each phase: only one client
// runs at a time and the server is a child process, so it is the client's
// CPU alone (GC included).
//
//	go run ./cmd/peercompare                          # the full table
//	go run ./cmd/peercompare -scenarios stdio-1x1,modern-stdio-1x1 -clients mcpengine,raw -rounds 1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

func main() {
	peers.MaybeServe()

	calls := flag.Int("calls", 10000, "measured calls per phase")
	rounds := flag.Int("rounds", 3, "interleaved rounds; the table shows medians over them")
	warmup := flag.Int("warmup", 1000, "unmeasured calls per phase, after connecting")
	scenarioList := flag.String("scenarios", "", "comma-separated rows (default all: "+scenarioNames()+")")
	clientList := flag.String("clients", "", "comma-separated clients (default all: "+clientNames()+")")
	flag.Parse()

	scenarios, kinds, err := pick(*scenarioList, *clientList)
	if err != nil || *calls <= 0 || *rounds <= 0 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "peercompare: bad flags:", err)
		os.Exit(2)
	}

	start := time.Now()
	fmt.Printf("peercompare %s: %s %s/%s, GOMAXPROCS=%d, NumCPU=%d, load average %s; %d calls/phase (+%d warmup), %d rounds\n\n",
		start.UTC().Format("2006-01-02 15:04 MST"), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.NumCPU(), loadAverage(), *calls, *warmup, *rounds)

	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	t := newTable(scenarios, kinds)
	order := pairedOrder(scenarios)
	for r := range *rounds {
		for _, si := range order {
			sc := scenarios[si]
			// Rotate the order every round so that no client always runs
			// first or right after the same neighbour.
			for j := range kinds {
				ki := (j + r) % len(kinds)
				if !kinds[ki].SpeaksVersion(sc.Version) {
					continue
				}
				res, err := peers.Run(ctx, sc, kinds[ki], *calls, *warmup)
				if err != nil {
					fmt.Fprintln(os.Stderr, "peercompare:", err)
					os.Exit(1)
				}
				t.add(si, ki, res)
			}
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done (%s)\n", r+1, *rounds, time.Since(start).Round(time.Second))
	}

	t.print(os.Stdout)
	fmt.Printf("\nload average at the end %s; total run time %s\n", loadAverage(), time.Since(start).Round(time.Second))
}

func pick(scenarioList, clientList string) ([]peers.Scenario, []peers.Kind, error) {
	scenarios, kinds := peers.Scenarios, peers.Kinds
	if scenarioList != "" {
		scenarios = nil
		for _, n := range strings.Split(scenarioList, ",") {
			sc, ok := peers.ScenarioNamed(strings.TrimSpace(n))
			if !ok {
				return nil, nil, fmt.Errorf("unknown scenario %q (have %s)", n, scenarioNames())
			}
			scenarios = append(scenarios, sc)
		}
	}
	if clientList != "" {
		kinds = nil
		for _, n := range strings.Split(clientList, ",") {
			k, ok := peers.KindNamed(strings.TrimSpace(n))
			if !ok {
				return nil, nil, fmt.Errorf("unknown client %q (have %s)", n, clientNames())
			}
			kinds = append(kinds, k)
		}
	}
	return scenarios, kinds, nil
}

// pairedOrder is the order the rows run in within a round: each 2026-07-28
// row right after its 2025-11-25 twin, so that the modern ÷ legacy ratio
// compares phases minutes apart at most, not the start and the end of a
// round on a machine whose other load changes.
func pairedOrder(scenarios []peers.Scenario) []int {
	var order []int
	placed := make([]bool, len(scenarios))
	for i, sc := range scenarios {
		if placed[i] {
			continue
		}
		order, placed[i] = append(order, i), true
		if sc.Version != peers.Legacy {
			continue
		}
		for j, m := range scenarios {
			if l, ok := peers.LegacyOf(m); ok && !placed[j] && m.Version == peers.Modern && l.Name == sc.Name {
				order, placed[j] = append(order, j), true
			}
		}
	}
	return order
}

func scenarioNames() string {
	var n []string
	for _, s := range peers.Scenarios {
		n = append(n, s.Name)
	}
	return strings.Join(n, ",")
}

func clientNames() string {
	var n []string
	for _, k := range peers.Kinds {
		n = append(n, k.Name)
	}
	return strings.Join(n, ",")
}

// loadAverage is the machine's 1, 5 and 15 minute load averages: the
// other work sharing the cores during the run.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
