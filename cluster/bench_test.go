//go:build !race

package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpengine/mcpengine"
)

// BenchmarkSessionCall is the cost of a call (ping to the demo server
// over Streamable HTTP on loopback) through the cluster: to a session
// this member owns, to one another member owns (one more hop over
// protoactor's gRPC remote each way), and, for scale, straight through an
// engine session without the cluster.
func BenchmarkSessionCall(b *testing.B) {
	servers := demoHTTP(b)
	ms := startMembers(b, 2, Config{Name: "bench", Servers: servers})
	waitMembers(b, ms, 2)
	ctx := b.Context()
	local, remote := findSessions(b, ctx, ms[0])

	b.Run("local-owner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := local.Call(ctx, "ping", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("remote-owner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := remote.Call(ctx, "ping", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("engine-direct", func(b *testing.B) {
		eng := mcpengine.New(mcpengine.Config{})
		defer eng.Close(context.Background())
		s, err := eng.Connect(ctx, mcpengine.SessionConfig{Name: "direct", Server: servers["demo"]})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, err := s.Call(ctx, "ping", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// findSessions finds a session m owns and one another member owns.
func findSessions(b *testing.B, ctx context.Context, m *Member) (local, remote *RemoteSession) {
	for i := 0; local == nil || remote == nil; i++ {
		if i > 1000 {
			b.Fatal("no session found on both members")
		}
		s := m.Session("demo", fmt.Sprint("b", i))
		owner, err := s.Owner(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Ensure(ctx); err != nil {
			b.Fatal(err)
		}
		if owner == m.Address() && local == nil {
			local = s
		} else if owner != m.Address() && remote == nil {
			remote = s
		}
	}
	return local, remote
}
