package benchmarks_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"net/http"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/benchmarks/internal/interop"
	"github.com/mcpengine/mcpengine/messages"
)

// methodCounter counts the requests a Go SDK server receives, by method.
type methodCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *methodCounter) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c.mu.Lock()
		c.n[method]++
		c.mu.Unlock()
		return next(ctx, method, req)
	}
}

func (c *methodCounter) get(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

// cachingServer is the Go SDK interop server (2026-07-28) whose cacheable
// results carry ttl and scope hints: tools/list and server/discover public
// for a minute, prompts/list public for promptsTTL, resources/read private
// for a minute.
func cachingServer(t *testing.T, promptsTTL time.Duration) (string, *methodCounter) {
	counter := &methodCounter{n: map[string]int{}}
	srv, err := interop.NewServerWith(interop.ModeModern, func(o *mcp.ServerOptions) {
		o.SetCacheable = func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			c.TTLMs, c.CacheScope = 60_000, "public"
			switch req.GetParams().(type) {
			case *mcp.ListPromptsParams:
				c.TTLMs = int(promptsTTL.Milliseconds())
			case *mcp.ReadResourceParams:
				c.CacheScope = "private"
			}
		}
	})
	require.NoError(t, err)
	srv.AddReceivingMiddleware(counter.middleware)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts.URL, counter
}

// TestResultCacheAgainstTheGoSDKServer: 20 sessions of one engine to one
// server list its tools once per ttl ("public"), discover it once, read a
// "private" resource once each; a list_changed drops the shared list; an
// expired ttl is fetched again; NoResultCache sends everything.
func TestResultCacheAgainstTheGoSDKServer(t *testing.T) {
	const sessions = 20
	promptsTTL := 200 * time.Millisecond
	url, counter := cachingServer(t, promptsTTL)
	e := mcpengine.New(mcpengine.Config{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		assert.NoError(t, e.Close(ctx))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var all []*mcpengine.Session
	for i := range sessions {
		s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("s", i), Server: mcpengine.ServerConfig{URL: url, Type: "streamable-http"}})
		require.NoError(t, err)
		require.Equal(t, messages.Version20260728, s.ProtocolVersion())
		all = append(all, s)
	}
	assert.Equal(t, 1, counter.get("server/discover"), "later sessions settle on the shared discover answer")

	for range 2 {
		for _, s := range all {
			tools, err := s.ListTools(ctx)
			require.NoError(t, err)
			require.Len(t, tools, 3)
			rr, err := s.ReadResource(ctx, "interop://greeting")
			require.NoError(t, err)
			require.Equal(t, "hello", rr.Contents[0].Text)
		}
	}
	assert.Equal(t, 1, counter.get("tools/list"), "public: one list for every session")
	assert.Equal(t, sessions, counter.get("resources/read"), "private: one read per session")

	// A list_changed heard by one session drops the shared list.
	listener := all[0]
	changed, stop := onToolsChanged(listener)
	defer stop()
	waitListenOpen(ctx, t, listener)
	_, err := listener.CallTool(ctx, "grow", nil)
	require.NoError(t, err)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed")
	}
	tools, err := all[sessions-1].ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, tools, 4, "the list after the change, not the cached one")
	assert.Equal(t, 2, counter.get("tools/list"))

	// prompts/list lives promptsTTL: cached within it, fetched after it.
	_, err = all[0].ListPrompts(ctx)
	require.NoError(t, err)
	_, err = all[1].ListPrompts(ctx)
	require.NoError(t, err)
	fetched := counter.get("prompts/list")
	require.LessOrEqual(t, fetched, 2) // 2 only if the machine took longer than the ttl between the two
	time.Sleep(promptsTTL)             // past the ttl: stale for certain
	_, err = all[1].ListPrompts(ctx)
	require.NoError(t, err)
	assert.Equal(t, fetched+1, counter.get("prompts/list"))

	// DropCachedResults forgets.
	all[2].DropCachedResults()
	_, err = all[2].ListTools(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, counter.get("tools/list"))

	// NoResultCache: every list goes to the server.
	plain := mcpengine.New(mcpengine.Config{NoResultCache: true})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		assert.NoError(t, plain.Close(ctx))
	})
	s, err := plain.Connect(ctx, mcpengine.SessionConfig{Name: "plain", Server: mcpengine.ServerConfig{URL: url, Type: "streamable-http"}})
	require.NoError(t, err)
	for range 2 {
		_, err = s.ListTools(ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, 5, counter.get("tools/list"))
}
