//go:build !race

// protoactor-go races with itself under the race detector (see
// cluster/helpers_test.go), so the tests that run cluster members in this
// process are built without -race; cmd/engine's
// TestClusterGatewaysShareOneUpstreamSession runs gateway processes.

package gateway_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// clusterGateways starts n gateways in this process, members of one
// cluster, fronting the demo server at url ("demo", a pool of one).
func clusterGateways(t testing.TB, n int, url string) ([]*gateway.Gateway, []*gateway.HTTPServer) {
	t.Helper()
	lns := make([]net.Listener, n)
	addrs := make([]string, n)
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns[i], addrs[i] = ln, ln.Addr().String()
	}
	gs := make([]*gateway.Gateway, n)
	hss := make([]*gateway.HTTPServer, n)
	for i := range gs {
		gs[i], hss[i] = startGateway(t, gateway.Config{
			Servers: map[string]gateway.Server{"demo": {Target: mcpengine.ServerConfig{URL: url, Type: "streamable-http"}}},
			Cluster: &cluster.Config{Name: t.Name(), Listener: lns[i], Join: addrs,
				Provider: cluster.ProviderConfig{RefreshTTL: 100 * time.Millisecond}},
		})
	}
	eventually(t, 20*time.Second, func() bool {
		for _, g := range gs {
			if h := g.Health(); h.Cluster == nil || len(h.Cluster.Members) != n {
				return false
			}
		}
		return true
	}, "every gateway lists every member")
	return gs, hss
}

func TestClusterGatewaysForwardRequestsCancellationSubscriptionsLogsAndRoots(t *testing.T) {
	bsrv, b := demoHTTP(t, demoserver.Options{Versions: messages.LegacyVersions})
	gs, hss := clusterGateways(t, 2, b.StreamableURL())
	ctx := testCtx(t, time.Minute)
	// The gateway that does not own the session: everything it forwards
	// crosses to the other member.
	var far int
	eventually(t, 20*time.Second, func() bool {
		for i, g := range gs {
			h := g.Health()
			if s := h.Servers["demo"].Sessions[0]; s.State == "ready" && s.Owner != "" && s.Owner != h.Cluster.Address {
				far = i
				return true
			}
		}
		return false
	}, "a gateway that does not own the session")
	s := connect(t, fullClient(t), "far", hss[far], "")

	// Lists, resources, prompts and completion through the gateway that
	// does not own the session.
	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	assert.Contains(t, names(tools, func(x messages.Tool) string { return x.Name }), "demo__echo")
	resources, err := s.ListResources(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, resources)
	rr, err := s.ReadResource(ctx, resources[0].URI)
	require.NoError(t, err)
	require.NotEmpty(t, rr.Contents)
	pr, err := s.GetPrompt(ctx, "demo__greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	require.NotEmpty(t, pr.Messages)
	cr, err := s.Complete(ctx, &messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: messages.RefPrompt, Name: "demo__summarize"},
		Argument: messages.CompleteArgument{Name: "style", Value: "b"},
	})
	require.NoError(t, err)
	assert.Contains(t, cr.Completion.Values, "brief")
	// A server's JSON-RPC error (a missing required argument) arrives as
	// it does from a local session.
	_, err = s.GetPrompt(ctx, "demo__greet", nil)
	var rpc *mcpengine.RPCError
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, int64(messages.CodeInvalidParams), rpc.Code, "%v", err)

	// The client gives up on a long call: the owner cancels it upstream.
	before := bsrv.Stats()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { // Owner: the test; exits when the call returns.
		_, err := s.CallTool(cctx, "demo__sleep", map[string]any{"ms": 30000})
		done <- err
	}()
	eventually(t, 20*time.Second, func() bool { return bsrv.Stats().ToolCalls["sleep"] == before.ToolCalls["sleep"]+1 },
		"the sleep call reached the server")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	eventually(t, 20*time.Second, func() bool { return bsrv.Stats().CancelledCalls == before.CancelledCalls+1 },
		"the upstream call was cancelled")

	// A subscription made through this gateway is held on the owner's
	// session; the update comes back here.
	var mu sync.Mutex
	var updated []string
	s.OnNotification(func(n mcpengine.Notification) {
		if n.Method == messages.NotificationResourcesUpdated {
			mu.Lock()
			updated = append(updated, string(n.Params))
			mu.Unlock()
		}
	})
	const uri = "demo://resource/1"
	require.NoError(t, s.Subscribe(ctx, uri))
	_, err = s.CallTool(ctx, "demo__touch", map[string]any{"uri": uri})
	require.NoError(t, err)
	eventually(t, 20*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(updated) == 1 },
		"resources/updated reached the subscribed client")

	// The upstream subscription is shared by the gateways: when this one
	// unsubscribes, the other's client still gets the updates.
	near := connect(t, fullClient(t), "near", hss[1-far], "")
	nearUpdates := make(chan struct{}, 4)
	near.OnNotification(func(n mcpengine.Notification) {
		if n.Method == messages.NotificationResourcesUpdated {
			nearUpdates <- struct{}{}
		}
	})
	require.NoError(t, near.Subscribe(ctx, uri))
	require.NoError(t, s.Unsubscribe(ctx, uri))
	_, err = s.CallTool(ctx, "demo__touch", map[string]any{"uri": uri})
	require.NoError(t, err)
	select {
	case <-nearUpdates:
	case <-ctx.Done():
		t.Fatal("the other gateway's client lost its subscription when this gateway unsubscribed")
	}

	// The server's log messages reach this gateway's client, at the
	// level it set here.
	logged := make(chan string, 4)
	near.OnNotification(func(n mcpengine.Notification) {
		if n.Method == messages.NotificationMessage {
			logged <- string(n.Params)
		}
	})
	require.NoError(t, near.SetLogLevel(ctx, messages.LoggingLevel("warning")))
	_, err = s.CallTool(ctx, "demo__log", map[string]any{"level": "error", "message": "through the cluster"})
	require.NoError(t, err)
	select {
	case p := <-logged:
		assert.Contains(t, p, "through the cluster")
	case <-ctx.Done():
		t.Fatal("the log message did not reach the other gateway's client")
	}

	// Elicitation and roots asked during a call come back to this
	// gateway's client.
	res, err := s.CallTool(ctx, "demo__elicit", map[string]any{"message": "who?"})
	require.NoError(t, err)
	assert.Contains(t, toolText(t, res), "Ada")
	res, err = s.CallTool(ctx, "demo__roots", map[string]any{})
	require.NoError(t, err)
	assert.Contains(t, toolText(t, res), "file:///work/project")
}
