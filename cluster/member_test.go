//go:build !race

// protoactor-go races with itself under the race detector (its gossip
// marshals member state another goroutine is writing: cluster/informer.go;
// remote.Start replaces the global gRPC logger while gRPC logs), so the
// tests that run members are built without -race. The cmd/engine tests
// run members as separate processes, which the race detector does not
// follow unless ENGINE_TEST_RACE_BIN=1.

package cluster

import (
	"slices"
	"testing"
	"time"
)

func TestThreeMembersSeeEachOther(t *testing.T) {
	ms := startMembers(t, 3, Config{Name: "see-each-other"})
	want := []string{ms[0].Address(), ms[1].Address(), ms[2].Address()}
	slices.Sort(want)
	for i, m := range ms {
		addrs := func() []string {
			var a []string
			for _, info := range m.Members() {
				a = append(a, info.Address)
			}
			return a
		}
		waitFor(t, 30*time.Second, "member sees all three", func() bool {
			return slices.Equal(addrs(), want)
		}, func() any { return addrs() })
		t.Logf("member %d (%s) sees %v", i, m.Address(), addrs())
	}
}
