package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// clusterGateway is an `engine gateway --listen-cluster` process.
type clusterGateway struct {
	p *servedProcess
}

type gatewayHealth struct {
	Servers map[string]struct {
		Ready    int `json:"ready"`
		Sessions []struct {
			Name     string `json:"name"`
			State    string `json:"state"`
			Owner    string `json:"owner"`
			InFlight int    `json:"inFlight"`
		} `json:"sessions"`
	} `json:"servers"`
	Cluster *struct {
		Address string   `json:"address"`
		Members []string `json:"members"`
	} `json:"cluster"`
}

func (g *clusterGateway) health() (gatewayHealth, error) {
	var h gatewayHealth
	resp, err := http.Get(g.p.url + "/healthz")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// startClusterGateways starts n gateways on 127.0.0.1 that join each
// other, fronting demoURL with a pool of one session.
func startClusterGateways(t *testing.T, n int, demoURL string) []*clusterGateway {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"mcpServers": {"demo": {"url": "`+demoURL+`", "type": "streamable-http"}}}`), 0o600))
	addrs := freePorts(t, n)
	gs := make([]*clusterGateway, n)
	for i := range gs {
		gs[i] = &clusterGateway{p: startGatewayCmd(t, nil, "--config", cfg, "--listen", "127.0.0.1:0",
			"--listen-cluster", addrs[i], "--join", strings.Join(addrs, ","), "--refresh", "200ms", "--cluster", t.Name(), "--wait", "0s", "-v")}
	}
	return gs
}

// noteLog collects the notifications a front client received.
type noteLog struct {
	mu  sync.Mutex
	got []string
}

func (l *noteLog) add(n mcpengine.Notification) {
	l.mu.Lock()
	l.got = append(l.got, n.Method)
	l.mu.Unlock()
}

func (l *noteLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprint(l.got)
}

func (l *noteLog) has(method string) bool { return l.count(method) > 0 }

func (l *noteLog) count(method string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.got {
		if m == method {
			n++
		}
	}
	return n
}

// TestClusterGatewaysShareOneUpstreamSession is issue 18's gateway test:
// two engine gateway processes joined in one cluster front one demo
// server with a pool of one; in the handshake era (legacy) and in
// 2026-07-28 (both: the gateways' sessions settle on it).
func TestClusterGatewaysShareOneUpstreamSession(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two gateways and a demo server")
	}
	for _, era := range []string{"legacy", "both"} {
		t.Run(era, func(t *testing.T) { clusterGatewaysShareOneUpstreamSession(t, era) })
	}
}

func clusterGatewaysShareOneUpstreamSession(t *testing.T, era string) {
	demo := startServe(t, "http", "--era", era, "--log-level", "debug", "--instructions", "shared by the cluster")
	gs := startClusterGateways(t, 2, demo.url)
	owner := -1
	eventually(t, time.Minute, "both gateways see two members and a ready demo session", func() (bool, any) {
		var hs []any
		for i, g := range gs {
			h, err := g.health()
			if err != nil || h.Cluster == nil || len(h.Cluster.Members) != 2 || h.Servers["demo"].Ready != 1 {
				return false, fmt.Sprint(h, err)
			}
			hs = append(hs, h)
			if s := h.Servers["demo"].Sessions[0]; s.Owner == h.Cluster.Address {
				owner = i
			}
		}
		return owner >= 0, hs
	})
	h, err := gs[0].health()
	require.NoError(t, err)
	assert.Equal(t, "demo/pool-0", h.Servers["demo"].Sessions[0].Name)

	samples := make(chan string, 4)
	client := mcpengine.New(mcpengine.Config{
		ProtocolVersion: messages.Version20251125,
		Sampling: func(_ context.Context, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			blocks, err := p.Messages[0].Blocks()
			if err != nil {
				return nil, err
			}
			samples <- blocks[0].Text
			res := &messages.CreateMessageResult{Role: messages.RoleAssistant, Model: "test-model"}
			return res, res.SetContent(messages.TextContent("sampled: " + blocks[0].Text))
		},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = client.Close(ctx)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	fronts := make([]*mcpengine.Session, len(gs))
	notes := make([]*noteLog, len(gs))
	for i, g := range gs {
		s, err := client.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("front", i),
			Server: mcpengine.ServerConfig{URL: g.p.url + "/mcp", Type: "streamable-http"}})
		require.NoError(t, err)
		fronts[i], notes[i] = s, &noteLog{}
		s.OnNotification(notes[i].add)
	}

	// Requests through either gateway reach the one upstream session,
	// whose initialize result every gateway has.
	for i, s := range fronts {
		assert.Contains(t, s.Instructions(), "shared by the cluster", "gateway %d", i)
		res, err := s.CallTool(ctx, "demo__echo", map[string]any{"text": fmt.Sprint("via gateway ", i)})
		require.NoError(t, err)
		assert.Contains(t, toolText(res), fmt.Sprint("via gateway ", i))
	}
	// Until both members list each other each may open the session;
	// the copy of the member that is not the owner is closed once they
	// agree (docs/CLUSTER.md, caveats).
	if era == "legacy" {
		eventually(t, 30*time.Second, "the upstream holds one session for two gateways", func() (bool, any) {
			return liveSessions(demo) == 1, demo.stderrText()
		})
	}

	// Progress and sampling come back to the gateway that made the call,
	// owner or not.
	for i, s := range fronts {
		var steps atomic.Int32
		_, err := s.Call(ctx, "tools/call", map[string]any{"name": "demo__progress", "arguments": map[string]any{"steps": 3}},
			mcpengine.WithProgress(func(messages.ProgressParams) { steps.Add(1) }))
		require.NoError(t, err)
		// The client runs progress callbacks on its own dispatcher,
		// possibly after the call returned.
		eventually(t, 30*time.Second, fmt.Sprint("three progress notifications through gateway ", i), func() (bool, any) {
			return steps.Load() == 3, steps.Load()
		})

		res, err := s.CallTool(ctx, "demo__sample", map[string]any{"prompt": fmt.Sprint("from ", i)})
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint("sampled: from ", i), toolText(res))
		assert.Equal(t, fmt.Sprint("from ", i), <-samples)
	}

	// The routing protocol through the gateway that does not own the
	// session, errors typed as for a local one.
	status, body := gatewayPost(t, gs[1-owner].p.url+"/rpc", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":2}},"server_id":"demo"}`)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"sum":4`)
	_, body = gatewayPost(t, gs[1-owner].p.url+"/rpc", "", `{"jsonrpc":"2.0","id":2,"method":"nope/nope","server_id":"demo"}`)
	assert.Contains(t, body, `"code":-32601`)

	// A list change reaches the front clients of both gateways.
	_, err = fronts[1-owner].CallTool(ctx, "demo__notify", map[string]any{"kind": "tools"})
	require.NoError(t, err)
	eventually(t, 30*time.Second, "tools/list_changed at both gateways' clients", func() (bool, any) {
		return notes[0].has(messages.NotificationToolsListChanged) && notes[1].has(messages.NotificationToolsListChanged), notes
	})

	// kill -9 the owner: the call in flight through the other gateway
	// fails, and later calls go through once the session moved.
	survivor := fronts[1-owner]
	const subscribed = "demo://resource/1"
	require.NoError(t, survivor.Subscribe(ctx, subscribed))
	inflight := make(chan error, 1)
	go func() { // Owner: the test; exits when the call returns.
		_, err := survivor.CallTool(ctx, "demo__sleep", map[string]any{"ms": 60000})
		inflight <- err
	}()
	eventually(t, 30*time.Second, "the sleep call is in flight through the survivor", func() (bool, any) {
		h, err := gs[1-owner].health()
		return err == nil && h.Servers["demo"].Sessions[0].InFlight == 1, h
	})
	require.NoError(t, gs[owner].p.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case err := <-inflight:
		var rpc *mcpengine.RPCError
		require.True(t, errors.As(err, &rpc), "%v", err)
		assert.Equal(t, int64(-32000), rpc.Code, "%v", err)
		assert.Contains(t, string(rpc.Data), "connection lost", "the gateway names the cause")
	case <-time.After(time.Minute):
		t.Fatal("the in-flight call did not fail when its owner died")
	}
	eventually(t, time.Minute, "calls through the survivor succeed again", func() (bool, any) {
		res, err := survivor.CallTool(ctx, "demo__echo", map[string]any{"text": "after"})
		return err == nil && toolText(res) != "", err
	})
	eventually(t, 30*time.Second, "the survivor's health names it the owner", func() (bool, any) {
		h, err := gs[1-owner].health()
		return err == nil && h.Cluster.Address == h.Servers["demo"].Sessions[0].Owner, h
	})
	// The survivor's watch and its subscription moved with the session:
	// once the new owner holds the subscription, the survivor's clients
	// are told the resource may have changed meanwhile, and the new
	// owner's updates arrive.
	survivorLog := lazyText(func() string {
		return fmt.Sprint(notes[1-owner], "\nthe survivor's log:\n", gs[1-owner].p.stderrText(), "\nthe demo server's log:\n", demo.stderrText())
	})
	eventually(t, 30*time.Second, "resources/updated at the survivor's client once the new owner holds the subscription", func() (bool, any) {
		return notes[1-owner].count(messages.NotificationResourcesUpdated) > 0, survivorLog
	})
	updates := notes[1-owner].count(messages.NotificationResourcesUpdated)
	_, err = survivor.CallTool(ctx, "demo__touch", map[string]any{"uri": subscribed})
	require.NoError(t, err)
	eventually(t, 30*time.Second, "the touch's resources/updated at the survivor's client", func() (bool, any) {
		return notes[1-owner].count(messages.NotificationResourcesUpdated) > updates, survivorLog
	})
	if era == "legacy" {
		// The dead owner's session is not ended by anyone (its HTTP
		// session stays until the server's idle timeout): two open, one
		// in use.
		assert.Equal(t, 2, liveSessions(demo), demo.stderrText())
	}
}

// lazyText is a failure message built only when it is printed.
type lazyText func() string

func (f lazyText) String() string { return f() }

// liveSessions is how many sessions the demo server opened and has not
// ended, from its debug log.
func liveSessions(demo *servedProcess) int {
	out := demo.stderrText()
	return strings.Count(out, "demoserver: initialized") - strings.Count(out, "demoserver: HTTP session ended")
}

func toolText(res *messages.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestStoppedClusterGatewayHandsItsSessionOver: a gateway that owns the
// shared session and is stopped with SIGTERM exits 0 and hands the
// session over; the other gateway's clients go on.
func TestStoppedClusterGatewayHandsItsSessionOver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two gateways and a demo server")
	}
	demo := startServe(t, "http", "--era", "legacy")
	gs := startClusterGateways(t, 2, demo.url)
	owner := -1
	eventually(t, time.Minute, "a gateway owns the ready demo session", func() (bool, any) {
		for i, g := range gs {
			h, err := g.health()
			if err != nil || h.Cluster == nil || len(h.Cluster.Members) != 2 || h.Servers["demo"].Ready != 1 {
				return false, fmt.Sprint(h, err)
			}
			if h.Servers["demo"].Sessions[0].Owner == h.Cluster.Address {
				owner = i
			}
		}
		return owner >= 0, owner
	})
	other := gs[1-owner]
	echo := func() (string, error) {
		status, body := gatewayPost(t, other.p.url+"/rpc", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}},"server_id":"demo"}`)
		if status != http.StatusOK || !strings.Contains(body, "still here") {
			return body, fmt.Errorf("status %d", status)
		}
		return body, nil
	}
	_, err := echo()
	require.NoError(t, err)

	require.NoError(t, gs[owner].p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-gs[owner].p.exited:
	case <-time.After(time.Minute):
		t.Fatalf("the gateway did not exit on SIGTERM; stderr: %s", gs[owner].p.stderrText())
	}
	require.NoError(t, gs[owner].p.waitErr, gs[owner].p.stderrText())
	eventually(t, time.Minute, "the other gateway owns the session and serves it", func() (bool, any) {
		h, err := other.health()
		if err != nil || h.Servers["demo"].Sessions[0].Owner != h.Cluster.Address {
			return false, fmt.Sprint(h, err)
		}
		body, err := echo()
		return err == nil, body
	})
}
