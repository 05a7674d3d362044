//go:build !race

package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// memberMetrics reads one member's cluster metrics: name, then the value
// of attr ("" for none), to the value.
type memberMetrics map[string]map[string]int64

func readMetrics(t testing.TB, r *sdkmetric.ManualReader) memberMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := memberMetrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != meterName {
			continue
		}
		for _, mt := range sm.Metrics {
			vals := map[string]int64{}
			var points []metricdata.DataPoint[int64]
			switch d := mt.Data.(type) {
			case metricdata.Sum[int64]:
				points = d.DataPoints
			case metricdata.Gauge[int64]:
				points = d.DataPoints
			default:
				t.Fatalf("%s: unexpected data %T", mt.Name, mt.Data)
			}
			for _, p := range points {
				key := ""
				for _, kv := range p.Attributes.ToSlice() {
					key = string(kv.Value.AsString())
				}
				vals[key] += p.Value
			}
			out[mt.Name] = vals
		}
	}
	return out
}

func (mm memberMetrics) get(name, attr string) int64 { return mm[name][attr] }

// Three members with a meter each: the gauges show the topology and the
// sessions each holds, activations and calls are counted where they
// happen, and a member leaving counts its sessions as moved away while
// the survivors count them as activated by hand-over (or after the
// owner left, when their topology dropped it first).
func TestMetricsFollowMembersActivationsCallsAndLeave(t *testing.T) {
	servers := demoHTTP(t)
	readers := make([]*sdkmetric.ManualReader, 3)
	ms := startMembers(t, 3, Config{Name: "metrics", Servers: servers}, func(i int, c *Config) {
		readers[i] = sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(readers[i]))
		t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
		c.Engine.Telemetry.Meter = mp
	})
	waitMembers(t, ms, 3)
	for i, r := range readers {
		if got := readMetrics(t, r).get(MetricMembers, ""); got != 3 {
			t.Fatalf("member %d: %s = %d, want 3", i, MetricMembers, got)
		}
	}

	ctx := t.Context()
	const n = 24
	for i := range n {
		callEcho(t, ctx, ms[0].Session("demo", fmt.Sprint("m", i)), "hi")
	}
	var placed, held int64
	for i, r := range readers {
		mm := readMetrics(t, r)
		placed += mm.get(MetricActivations, ActivationPlaced)
		held += mm.get(MetricSessions, "")
		if got, want := mm.get(MetricSessions, ""), int64(len(ms[i].LocalSessions())); got != want {
			t.Errorf("member %d: %s = %d, holds %d", i, MetricSessions, got, want)
		}
	}
	if placed != n || held != n {
		t.Fatalf("activations placed %d, sessions held %d; want %d each", placed, held, n)
	}
	first := readMetrics(t, readers[0])
	local, remote := first.get(MetricCalls, OwnerLocal), first.get(MetricCalls, OwnerRemote)
	if local != int64(len(ms[0].LocalSessions())) || local+remote != n {
		t.Fatalf("member 0 calls: local %d remote %d; it holds %d of %d", local, remote, len(ms[0].LocalSessions()), n)
	}
	for i := 1; i < 3; i++ {
		if mm := readMetrics(t, readers[i]); mm.get(MetricCalls, OwnerLocal)+mm.get(MetricCalls, OwnerRemote) != 0 {
			t.Errorf("member %d counted calls it did not make: %v", i, mm[MetricCalls])
		}
	}

	leaving := 2
	if len(ms[1].LocalSessions()) > len(ms[2].LocalSessions()) {
		leaving = 1
	}
	movedN := int64(len(ms[leaving].LocalSessions()))
	if movedN == 0 {
		t.Fatal("the leaving member holds no session")
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := ms[leaving].Close(cctx); err != nil {
		t.Fatal(err)
	}
	if got := readMetrics(t, readers[leaving]).get(MetricMovedAway, ""); got != movedN {
		t.Fatalf("leaving member: %s = %d, want %d", MetricMovedAway, got, movedN)
	}
	survivors := []int{0, 3 - leaving}
	waitMembers(t, []*Member{ms[survivors[0]], ms[survivors[1]]}, 2)
	state := func() any {
		s := map[int]memberMetrics{}
		for _, i := range survivors {
			s[i] = readMetrics(t, readers[i])
		}
		return s
	}
	waitFor(t, 10*time.Second, "survivors hold every session and counted the moved ones", func() bool {
		var held, movedIn int64
		for _, i := range survivors {
			mm := readMetrics(t, readers[i])
			if mm.get(MetricMembers, "") != 2 {
				return false
			}
			held += mm.get(MetricSessions, "")
			movedIn += mm.get(MetricActivations, ActivationHandover) + mm.get(MetricActivations, ActivationOwnerLeft)
		}
		return held == n && movedIn == movedN
	}, state)
	// Calling every session again activates nothing more: they were
	// handed over before anyone called.
	for i := range n {
		callEcho(t, ctx, ms[0].Session("demo", fmt.Sprint("m", i)), "again")
	}
	var activations int64
	for _, i := range survivors {
		for _, v := range readMetrics(t, readers[i])[MetricActivations] {
			activations += v
		}
	}
	// Those placed on them plus those moved in: every session once.
	if activations != n {
		t.Errorf("survivors' activations %d after calling again, want %d: %v", activations, n, state())
	}
}
