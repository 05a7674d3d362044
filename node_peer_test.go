package mcpengine_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// everythingServer is the official TypeScript reference server
// (@modelcontextprotocol/server-everything, pinned in testdata/node),
// run by Node as a real subprocess: a non-Go peer for the engine.
func everythingServer(t *testing.T) mcpengine.ServerConfig {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	entry, _ := filepath.Abs("testdata/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skip("testdata/node is not installed: run `make node-deps`")
	}
	return mcpengine.ServerConfig{Command: node, Args: []string{entry, "stdio"}}
}

func TestTypeScriptReferenceServerFullRoundTrip(t *testing.T) {
	everythingRoundTrip(t, everythingServer(t))
}

// everythingRoundTrip drives every feature of the reference server through
// one session to srv.
func everythingRoundTrip(t *testing.T, srv mcpengine.ServerConfig) {
	sampled := make(chan string, 1)
	e := newEngine(t, mcpengine.Config{
		Roots: []messages.Root{{URI: "file:///work/project", Name: "project"}},
		Sampling: func(_ context.Context, req *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			blocks, _ := req.Messages[0].Blocks()
			if len(blocks) > 0 {
				sampled <- blocks[0].Text
			}
			return &messages.CreateMessageResult{Role: "assistant", Model: "test-model", Content: mustSampling(messages.TextContent("a sampled answer"))}, nil
		},
		Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionDecline}, nil
		},
	})
	ctx := testCtx(t, 60*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "everything", Server: srv})
	require.NoError(t, err)
	assert.Equal(t, messages.LatestVersion, s.ProtocolVersion())
	assert.Contains(t, s.ServerInfo().Name, "everything")

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request", "get-roots-list"} {
		assert.True(t, names[want], "tool %s listed (have %v)", want, names)
	}

	res, err := s.CallTool(ctx, "echo", map[string]any{"message": "from go"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Contains(t, res.Content[0].Text, "from go")

	res, err = s.CallTool(ctx, "get-sum", map[string]any{"a": 2, "b": 40})
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].Text, "42")

	steps := make(chan messages.ProgressParams, 8)
	res, err = s.CallTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3},
		mcpengine.WithProgress(func(p messages.ProgressParams) { steps <- p }))
	require.NoError(t, err)
	require.False(t, res.IsError)
	for i := 1; i <= 3; i++ {
		select {
		case p := <-steps:
			assert.Equal(t, float64(i), p.Progress)
		case <-ctx.Done():
			t.Fatal("progress missing")
		}
	}

	res, err = s.CallTool(ctx, "trigger-sampling-request", map[string]any{"prompt": "what is MCP?"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.Contains(t, <-sampled, "what is MCP?")
	assert.Contains(t, joinText(res), "a sampled answer")

	res, err = s.CallTool(ctx, "get-roots-list", nil)
	require.NoError(t, err)
	assert.Contains(t, joinText(res), "file:///work/project")

	res, err = s.CallTool(ctx, "trigger-elicitation-request", nil)
	require.NoError(t, err)
	assert.Contains(t, strings.ToLower(joinText(res)), "decline")

	resources, err := s.ListResources(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, resources)
	read, err := s.ReadResource(ctx, resources[0].URI)
	require.NoError(t, err)
	require.NotEmpty(t, read.Contents)
	_, err = s.ListResourceTemplates(ctx)
	require.NoError(t, err)

	prompts, err := s.ListPrompts(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, prompts)
	var simple string
	for _, p := range prompts {
		if len(p.Arguments) == 0 {
			simple = p.Name
		}
	}
	if simple != "" {
		got, err := s.GetPrompt(ctx, simple, nil)
		require.NoError(t, err)
		assert.NotEmpty(t, got.Messages)
	}
	require.NoError(t, s.SetLogLevel(ctx, "debug"))
	require.NoError(t, s.Ping(ctx))

	// Cancellation: the caller returns at once and the session goes on.
	cctx, cancel := context.WithCancel(ctx)
	started := make(chan struct{}, 64)
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(cctx, "trigger-long-running-operation", map[string]any{"duration": 30, "steps": 300},
			mcpengine.WithProgress(func(messages.ProgressParams) { started <- struct{}{} }))
		done <- err
	}()
	<-started // the server is working on it
	cancel()
	assert.True(t, errors.Is(<-done, context.Canceled))
	require.NoError(t, s.Ping(ctx))
}

func joinText(r *messages.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
		b.WriteString("\n")
	}
	return b.String()
}
