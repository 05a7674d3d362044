package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/internal/proctest"
	"github.com/mcpengine/mcpengine/messages"
)

// serveChildren lists the pids of this test process's `engine serve`
// children (the engine starts servers as its direct children).
func serveChildren(t *testing.T) []int {
	t.Helper()
	pids, err := proctest.Children(engineBin, "serve")
	require.NoError(t, err)
	return pids
}

func requests(g *gateway.Gateway, server string) []uint64 {
	var out []uint64
	for _, s := range g.Health().Servers[server].Sessions {
		out = append(out, s.Requests)
	}
	return out
}

func TestPoolSendsEachRequestToTheLeastLoadedReadySession(t *testing.T) {
	g, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{"p": {Target: engineServe(), Pool: 3}},
		// A session that fails stays in backoff for the rest of the test.
		Engine: mcpengine.Config{Backoff: mcpengineBackoffHour()},
	})
	require.Len(t, serveChildren(t), 3, "one server process per pool member")
	eventually(t, 20*time.Second, func() bool { return g.Health().Servers["p"].Ready == 3 }, "every member ready")

	// 30 slow calls at once: each goes to the member with the fewest in
	// flight, so they spread evenly.
	var wg sync.WaitGroup
	for i := range 30 {
		// Owner: the test (wg). Exits when the call is answered.
		wg.Go(func() {
			body := postAsync(t, gw.RouteURL(), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300}},"server_id":"p"}`, i))
			assert.Contains(t, string(body), `"result"`)
		})
	}
	wg.Wait()
	spread := requests(g, "p")
	require.Len(t, spread, 3)
	for i, n := range spread {
		assert.InDelta(t, 10, n, 2, "member %d got %d of 30 (%v)", i, n, spread)
	}

	// One member's server dies: its session goes into backoff and is
	// skipped; every request goes to the other two.
	require.NoError(t, syscall.Kill(serveChildren(t)[0], syscall.SIGKILL))
	eventually(t, 10*time.Second, func() bool { return g.Health().Servers["p"].Ready == 2 }, "a member should be in backoff")
	var down int
	for i, s := range g.Health().Servers["p"].Sessions {
		if s.State == "backoff" {
			down = i
		}
	}
	before := requests(g, "p")
	for i := range 20 {
		_, body, _ := post(t, gw.RouteURL(), "", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"server_id":"p"}`, i))
		require.NotNil(t, member(t, body, "result"), "%s", body)
	}
	after := requests(g, "p")
	assert.Equal(t, before[down], after[down], "the member in backoff got nothing")
	assert.Equal(t, uint64(20), (after[0]+after[1]+after[2])-(before[0]+before[1]+before[2]))
	assert.Equal(t, "ok", g.Health().Status, "the server is still up")
}

// gatedSampler is a client whose sampling handler reports each request
// and answers only when released.
type gatedSampler struct {
	started chan string
	release chan struct{}
}

func newGatedSampler(t *testing.T) (*gatedSampler, *mcpengine.Engine) {
	g := &gatedSampler{started: make(chan string, 8), release: make(chan struct{})}
	e := clientEngine(t, mcpengine.Config{
		Sampling: func(ctx context.Context, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			blocks, err := p.Messages[0].Blocks()
			if err != nil {
				return nil, err
			}
			g.started <- blocks[0].Text
			select {
			case <-g.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			res := &messages.CreateMessageResult{Role: messages.RoleAssistant, Model: "m"}
			return res, res.SetContent(messages.TextContent("sampled: " + blocks[0].Text))
		},
	})
	return g, e
}

func TestPoolGivesAClientThatTakesServerRequestsASessionOfItsOwn(t *testing.T) {
	// Client one samples on one member of a pool of two, client two on the
	// other. When client two sends a second call, both members are equally
	// loaded; it must go to the member client two already uses, or the
	// server's sampling request there could not be told apart from client
	// one's and would be refused.
	g, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"p": {Target: engineServe(), Pool: 2}}})
	eventually(t, 20*time.Second, func() bool { return g.Health().Servers["p"].Ready == 2 }, "both members ready")
	one, e1 := newGatedSampler(t)
	two, e2 := newGatedSampler(t)
	s1, s2 := connect(t, e1, "one", gw, ""), connect(t, e2, "two", gw, "")

	var wg sync.WaitGroup
	call := func(s *mcpengine.Session, prompt string) {
		// Owner: the test (wg). Exits when the call is answered, after the
		// samplers are released.
		wg.Go(func() {
			res, err := s.CallTool(testCtx(t, 30*time.Second), "p__sample", map[string]any{"prompt": prompt})
			if assert.NoError(t, err) && assert.NotEmpty(t, res.Content) {
				assert.Equal(t, "sampled: "+prompt, res.Content[0].Text)
			}
		})
	}
	waitStarted := func(g *gatedSampler, prompt string) {
		select {
		case got := <-g.started:
			require.Equal(t, prompt, got)
		case <-time.After(10 * time.Second):
			t.Fatalf("the sampling request of %s never reached its client", prompt)
		}
	}
	call(s1, "A")
	waitStarted(one, "A")
	call(s2, "C1")
	waitStarted(two, "C1")
	call(s2, "C2")
	waitStarted(two, "C2")
	close(one.release)
	close(two.release)
	wg.Wait()
}
