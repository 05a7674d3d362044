//go:build !race

// protoactor-go races with itself under the race detector (its gossip
// marshals member state another goroutine is writing: cluster/informer.go;
// remote.Start replaces the global gRPC logger while gRPC logs), so the
// tests that run members are built without -race. The cmd/engine tests
// run members as separate processes, which the race detector does not
// follow unless ENGINE_TEST_RACE_BIN=1.

package cluster

import (
	"context"
	"net"
	"testing"
	"time"
)

// startMembers starts n members on 127.0.0.1 that all know each other:
// their membership listeners are bound first, so each Join names the
// others' real ports. each, if given, adjusts member i's config. Every
// member is closed when the test ends.
func startMembers(t testing.TB, n int, base Config, each ...func(i int, c *Config)) []*Member {
	t.Helper()
	lns := make([]net.Listener, n)
	addrs := make([]string, n)
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i], addrs[i] = ln, ln.Addr().String()
	}
	members := make([]*Member, n)
	for i := range members {
		cfg := base
		cfg.Listener = lns[i]
		cfg.Join = addrs
		if cfg.Provider.RefreshTTL == 0 {
			// Short, so that a dead member is noticed quickly and the
			// provider's poll loop ends soon after Close.
			cfg.Provider.RefreshTTL = 100 * time.Millisecond
		}
		for _, f := range each {
			f(i, &cfg)
		}
		m, err := Start(t.Context(), cfg)
		if err != nil {
			for _, ln := range lns[i:] {
				ln.Close()
			}
			t.Fatalf("member %d: %v", i, err)
		}
		members[i] = m
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := m.Close(ctx); err != nil && err != ErrClosed {
				t.Errorf("closing member %d: %v", i, err)
			}
		})
	}
	return members
}

// waitFor polls cond until it holds or the deadline passes; it fails the
// test with what, and the last state last reports.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool, last func() any) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last: %v", what, within, last())
		}
		<-tick.C
	}
}
