//go:build !race

package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// TestCallsCarryProgressCancellationAndServerRequests: through a member
// that does not own the session, a call's progress comes back before its
// result, a caller that gives up cancels the request upstream, and a
// sampling request the server makes during a call is answered by the
// calling member's ServerRequests.
func TestCallsCarryProgressCancellationAndServerRequests(t *testing.T) {
	// The handshake era, where a cancelled call is a notification the
	// demo server counts.
	demo := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions})
	hs, err := demo.ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Close(ctx)
	})
	var asked atomic.Value
	ms := startMembers(t, 2, Config{Servers: map[string]mcpengine.ServerConfig{"demo": {URL: hs.StreamableURL()}}},
		func(i int, c *Config) {
			c.ServerRequests = func(_ context.Context, identity, method string, params json.RawMessage) (json.RawMessage, error) {
				asked.Store(identity + " " + method + " on member " + string(rune('0'+i)))
				return json.RawMessage(`{"role":"assistant","model":"m","content":{"type":"text","text":"answered"}}`), nil
			}
		})
	waitMembers(t, ms, 2)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// A session the first member does not own.
	var s *RemoteSession
	for i := 0; s == nil; i++ {
		c := ms[0].Session("demo", "s"+string(rune('a'+i)))
		if owner, err := c.Owner(ctx); err != nil {
			t.Fatal(err)
		} else if owner != ms[0].Address() {
			s = c
		}
	}

	var mu sync.Mutex
	var steps int
	res, err := s.CallWith(ctx, "tools/call", json.RawMessage(`{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"p"}}`),
		CallOptions{Progress: func(json.RawMessage) { mu.Lock(); steps++; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if steps != 3 {
		t.Errorf("got %d progress notifications before the result %s, want 3", steps, res)
	}
	mu.Unlock()

	res, err = s.CallWith(ctx, "tools/call", json.RawMessage(`{"name":"sample","arguments":{"prompt":"hi"}}`), CallOptions{ServesRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), "answered") {
		t.Errorf("sample answered %s", res)
	}
	if got, want := asked.Load(), s.Identity()+" sampling/createMessage on member 0"; got != want {
		t.Errorf("the server request reached %v, want %v", got, want)
	}

	before := demo.Stats()
	cctx, cancelCall := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { // Owner: the test; exits when the call returns.
		_, err := s.CallWith(cctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":30000}}`), CallOptions{})
		done <- err
	}()
	waitFor(t, 30*time.Second, "the sleep call reached the server",
		func() bool { return demo.Stats().ToolCalls["sleep"] == before.ToolCalls["sleep"]+1 }, func() any { return demo.Stats() })
	cancelCall()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call succeeded")
	}
	waitFor(t, 30*time.Second, "the server saw the call cancelled",
		func() bool { return demo.Stats().CancelledCalls == before.CancelledCalls+1 }, func() any { return demo.Stats() })
}

// TestWatcherFollowsTheSessionToItsNewOwner: a watcher gets the session's
// state with its initialize result and its notifications, and after the
// owner leaves it finds the session on the new owner and gets its
// notifications there.
func TestWatcherFollowsTheSessionToItsNewOwner(t *testing.T) {
	ms := startMembers(t, 3, Config{Servers: demoHTTP(t)})
	waitMembers(t, ms, 3)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// Watched from member 0; owned by another member.
	var s *RemoteSession
	var ownerIdx int
	for i := 0; s == nil; i++ {
		c := ms[0].Session("demo", "w"+string(rune('a'+i)))
		owner, err := c.Owner(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for j, m := range ms[1:] {
			if m.Address() == owner {
				s, ownerIdx = c, j+1
			}
		}
	}
	var mu sync.Mutex
	var notes []string
	var last Status
	w := s.Watch(func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Status != nil {
			last = *ev.Status
			return
		}
		notes = append(notes, ev.Method)
	})
	defer w.Close()
	state := func() Status { mu.Lock(); defer mu.Unlock(); return last }
	noted := func(n int) bool { mu.Lock(); defer mu.Unlock(); return len(notes) >= n }
	waitFor(t, 30*time.Second, "the watcher sees the session ready on its owner", func() bool {
		st := state()
		return st.State == "ready" && st.Owner == ms[ownerIdx].Address() && strings.Contains(string(st.Initialize), `"serverInfo"`)
	}, func() any { return state() })

	notify := func() {
		t.Helper()
		if _, err := s.CallTool(ctx, "notify", map[string]any{"kind": "tools"}); err != nil {
			t.Fatal(err)
		}
	}
	notify()
	waitFor(t, 30*time.Second, "the notification reached the watcher", func() bool { return noted(1) }, func() any { return notes })

	closeCtx, cancelClose := context.WithTimeout(ctx, 30*time.Second)
	defer cancelClose()
	if err := ms[ownerIdx].Close(closeCtx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the watcher follows the session to a survivor", func() bool {
		st := state()
		return st.State == "ready" && st.Owner != "" && st.Owner != ms[ownerIdx].Address()
	}, func() any { return state() })
	mu.Lock()
	n := len(notes)
	mu.Unlock()
	notify()
	waitFor(t, 30*time.Second, "the new owner's notification reached the watcher", func() bool { return noted(n + 1) },
		func() any { return notes })
}
