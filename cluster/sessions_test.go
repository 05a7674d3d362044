//go:build !race

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

// demoHTTP serves the demo server over Streamable HTTP for the test.
func demoHTTP(t testing.TB) map[string]mcpengine.ServerConfig {
	t.Helper()
	srv, err := demoserver.New(demoserver.Options{}).ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	return map[string]mcpengine.ServerConfig{"demo": {URL: srv.StreamableURL()}}
}

// waitMembers waits until every member lists n members.
func waitMembers(t testing.TB, ms []*Member, n int) {
	t.Helper()
	for _, m := range ms {
		waitFor(t, 30*time.Second, "topology of every member", func() bool { return len(m.Members()) == n },
			func() any { return m.Members() })
	}
}

func callEcho(t *testing.T, ctx context.Context, s *RemoteSession, text string) {
	t.Helper()
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": text})
	if err != nil {
		t.Fatalf("%s: echo: %v", s.Identity(), err)
	}
	b, _ := json.Marshal(res.Content)
	if !json.Valid(b) || len(res.Content) == 0 {
		t.Fatalf("%s: echo answered %s", s.Identity(), b)
	}
}

// ownership is, per identity, the members that report holding it.
func ownership(t *testing.T, ctx context.Context, asker *Member, ms []*Member) map[string][]string {
	t.Helper()
	own := map[string][]string{}
	for _, m := range ms {
		ids, err := asker.OwnedSessions(ctx, m.Address())
		if err != nil {
			t.Fatalf("asking %s what it owns: %v", m.Address(), err)
		}
		for _, id := range ids {
			own[id] = append(own[id], m.Address())
		}
	}
	return own
}

func TestSessionsHaveOneOwnerReachableFromEveryMember(t *testing.T) {
	servers := demoHTTP(t)
	ms := startMembers(t, 3, Config{Name: "one-owner", Servers: servers})
	waitMembers(t, ms, 3)
	ctx := t.Context()
	const n = 30
	for i := range n {
		for _, m := range ms {
			callEcho(t, ctx, m.Session("demo", fmt.Sprint("s", i)), "hi")
		}
	}
	own := ownership(t, ctx, ms[0], ms)
	if len(own) != n {
		t.Fatalf("%d sessions owned, want %d: %v", len(own), n, own)
	}
	perMember := map[string]int{}
	for id, owners := range own {
		if len(owners) != 1 {
			t.Errorf("%s owned by %v", id, owners)
		}
		perMember[owners[0]]++
	}
	if len(perMember) < 2 {
		t.Errorf("every session on one member: %v", perMember)
	}
	t.Logf("sessions per member: %v", perMember)
}

func TestJSONRPCErrorArrivesTyped(t *testing.T) {
	servers := demoHTTP(t)
	ms := startMembers(t, 2, Config{Name: "typed-errors", Servers: servers})
	waitMembers(t, ms, 2)
	ctx := t.Context()
	for i := range 6 {
		s := ms[0].Session("demo", fmt.Sprint("e", i))
		_, err := s.Call(ctx, "no/such/method", nil)
		var rpc *mcpengine.RPCError
		if !errors.As(err, &rpc) || rpc.Code != -32601 {
			t.Fatalf("%s: want a -32601 *mcpengine.RPCError, got %T %v", s.Identity(), err, err)
		}
	}
	_, err := ms[0].Session("nope", "x").Call(ctx, "ping", nil)
	if !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("unknown server: got %T %v", err, err)
	}
}

func TestGracefulLeaveHandsSessionsOver(t *testing.T) {
	servers := demoHTTP(t)
	ms := startMembers(t, 3, Config{Name: "hand-over", Servers: servers})
	waitMembers(t, ms, 3)
	ctx := t.Context()
	const n = 30
	for i := range n {
		callEcho(t, ctx, ms[0].Session("demo", fmt.Sprint("h", i)), "before")
	}
	leaving := ms[2]
	moved := leaving.LocalSessions()
	if len(moved) == 0 {
		t.Fatal("the leaving member holds no session")
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := leaving.Close(cctx); err != nil {
		t.Fatal(err)
	}
	rest := ms[:2]
	waitMembers(t, rest, 2)
	// Handed over: live on a remaining member before anyone calls them.
	live := func() map[string][]string { return ownership(t, ctx, ms[0], rest) }
	waitFor(t, 10*time.Second, "moved sessions live elsewhere", func() bool {
		own := live()
		for _, id := range moved {
			if len(own[id]) != 1 {
				return false
			}
		}
		return true
	}, func() any { return live() })
	for i := range n {
		callEcho(t, ctx, ms[1].Session("demo", fmt.Sprint("h", i)), "after")
	}
}
