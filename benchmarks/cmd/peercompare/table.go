package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
)

// table holds every round's result of each (scenario, client) cell.
type table struct {
	scenarios []peers.Scenario
	kinds     []peers.Kind
	cells     [][][]peers.Result // [scenario][kind][round]
}

func newTable(scenarios []peers.Scenario, kinds []peers.Kind) *table {
	t := &table{scenarios: scenarios, kinds: kinds, cells: make([][][]peers.Result, len(scenarios))}
	for i := range t.cells {
		t.cells[i] = make([][]peers.Result, len(kinds))
	}
	return t
}

func (t *table) add(si, ki int, r peers.Result) { t.cells[si][ki] = append(t.cells[si][ki], r) }

// median of f over a cell's rounds; ok is false for an empty cell.
func median(rs []peers.Result, f func(peers.Result) float64) (float64, bool) {
	if len(rs) == 0 {
		return 0, false
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

func callsPerSec(r peers.Result) float64 { return r.CallsPerSec() }
func cpuMicros(r peers.Result) float64   { return float64(r.CPUPerCall()) / 1e3 }
func firstCallMillis(r peers.Result) float64 {
	return float64(r.FirstCall.Microseconds()) / 1e3
}

// cell renders one scenario × client cell.
func (t *table) cell(si, ki int) string {
	rs := t.cells[si][ki]
	if len(rs) == 0 {
		return "—"
	}
	m := func(f func(peers.Result) float64) float64 { v, _ := median(rs, f); return v }
	sc := t.scenarios[si]
	if sc.FirstCall {
		return fmt.Sprintf("%.1f ms", m(firstCallMillis))
	}
	if !sc.Idle {
		return fmt.Sprintf("%.0f · %.0f µs", m(callsPerSec), m(cpuMicros))
	}
	s := fmt.Sprintf("%.1f KiB · %.2f", m(func(r peers.Result) float64 { return r.HeapPerSession / 1024 }),
		m(func(r peers.Result) float64 { return r.GoroutinesPerSession }))
	if sc.HTTP {
		s += fmt.Sprintf(" · %.0f ms", m(func(r peers.Result) float64 { return float64(r.OpenAll.Microseconds()) / 1e3 }))
	}
	return s
}

func (t *table) print(w io.Writer) {
	head := []string{"scenario"}
	for _, k := range t.kinds {
		head = append(head, k.Name)
	}
	row := func(cols []string) { fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |") }
	fmt.Fprintln(w, "Cells: calls/s · client CPU per call (medians over rounds); idle rows: heap · goroutines per session (· time to open all).")
	fmt.Fprintln(w)
	row(head)
	row(slices.Repeat([]string{"---"}, len(head)))
	for si, sc := range t.scenarios {
		cols := []string{sc.Label()}
		for ki := range t.kinds {
			cols = append(cols, t.cell(si, ki))
		}
		row(cols)
	}
	t.printDetails(w)
	t.printRatios(w)
}

// printDetails gives, per call row and client, what the main table leaves
// out: allocations and latency.
func (t *table) printDetails(w io.Writer) {
	fmt.Fprintln(w, "\nDetails (medians): allocs/call · B/call · p50 · p99 latency")
	fmt.Fprintln(w)
	for si, sc := range t.scenarios {
		if sc.Idle || sc.FirstCall {
			continue
		}
		var parts []string
		for ki, k := range t.kinds {
			rs := t.cells[si][ki]
			if len(rs) == 0 {
				continue
			}
			m := func(f func(peers.Result) float64) float64 { v, _ := median(rs, f); return v }
			parts = append(parts, fmt.Sprintf("%s %.0f · %.0f B · %.0f µs · %.0f µs", k.Name,
				m(peers.Result.AllocsPerCall), m(peers.Result.BytesPerCall),
				m(func(r peers.Result) float64 { return float64(r.P50) / 1e3 }),
				m(func(r peers.Result) float64 { return float64(r.P99) / 1e3 })))
		}
		fmt.Fprintf(w, "- %s: %s\n", sc.Label(), strings.Join(parts, "; "))
	}
}

// printRatios compares mcpengine with the raw loop (issue 17: CPU per call
// ≤ 1.15×, calls/s ≥ 0.95×) and each client's 2026-07-28 row with its
// handshake-era row (issue 14: mcpengine ≤ 1.10× CPU per call).
func (t *table) printRatios(w io.Writer) {
	ki := func(name string) int {
		return slices.IndexFunc(t.kinds, func(k peers.Kind) bool { return k.Name == name })
	}
	eng := ki("mcpengine")
	if eng < 0 {
		return
	}
	fmt.Fprintln(w)
	for _, raw := range []string{"raw", "raw-sonic"} {
		ri := ki(raw)
		if ri < 0 {
			continue
		}
		for si, sc := range t.scenarios {
			if sc.FirstCall {
				ef, ok1 := median(t.cells[si][eng], firstCallMillis)
				rf, ok2 := median(t.cells[si][ri], firstCallMillis)
				if ok1 && ok2 {
					fmt.Fprintf(w, "mcpengine ÷ %s, %s: %.2fx (target ≤ 2) %s\n", raw, sc.Label(), ef/rf, verdict(ef/rf <= 2))
				}
				continue
			}
			if sc.Idle {
				continue
			}
			ec, ok1 := median(t.cells[si][eng], cpuMicros)
			rc, ok2 := median(t.cells[si][ri], cpuMicros)
			et, _ := median(t.cells[si][eng], callsPerSec)
			rt, _ := median(t.cells[si][ri], callsPerSec)
			if !ok1 || !ok2 {
				continue
			}
			fmt.Fprintf(w, "mcpengine ÷ %s, %s: CPU/call %.2fx (target ≤ 1.15) %s, calls/s %.2fx (target ≥ 0.95) %s\n",
				raw, sc.Label(), ec/rc, verdict(ec/rc <= 1.15), et/rt, verdict(et/rt >= 0.95))
		}
	}
	for si, sc := range t.scenarios {
		if sc.Version != peers.Modern {
			continue
		}
		li := slices.IndexFunc(t.scenarios, func(s peers.Scenario) bool {
			l, ok := peers.LegacyOf(sc)
			return ok && s.Name == l.Name
		})
		if li < 0 {
			continue
		}
		var parts []string
		for k := range t.kinds {
			mc, ok1 := median(t.cells[si][k], cpuMicros)
			lc, ok2 := median(t.cells[li][k], cpuMicros)
			if !ok1 || !ok2 {
				continue
			}
			p := fmt.Sprintf("%s %.2fx", t.kinds[k].Name, mc/lc)
			if k == eng {
				p += " (target ≤ 1.10) " + verdict(mc/lc <= 1.10)
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "modern ÷ legacy CPU/call, %s: %s\n", strings.TrimPrefix(sc.Label(), peers.Modern+" "), strings.Join(parts, "; "))
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "MET"
	}
	return "MISSED"
}
