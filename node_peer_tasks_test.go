package mcpengine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// The reference server's simulate-research-query tool requires to run as a
// task (2025-11-25); asked about an ambiguous topic, its task needs an
// elicitation, which it sends with the task's related-task _meta.
func TestReferenceServerToolThatRequiresATask(t *testing.T) {
	stdio := everythingServer(t)
	t.Run("stdio", func(t *testing.T) { researchAsTask(t, stdio) })
	t.Run("streamable-http", func(t *testing.T) {
		base := everythingOverHTTP(t, "streamableHttp")
		researchAsTask(t, mcpengine.ServerConfig{URL: base + "/mcp", Type: "streamable-http"})
	})
}

func researchAsTask(t *testing.T, srv mcpengine.ServerConfig) {
	var mu sync.Mutex
	var elicitedFor []any
	e := newEngine(t, mcpengine.Config{
		Elicitation: func(_ context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error) {
			mu.Lock()
			elicitedFor = append(elicitedFor, req.Meta[messages.MetaKeyRelatedTask])
			mu.Unlock()
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"interpretation": "snake"}}, nil
		},
	})
	ctx := testCtx(t, 60*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "everything", Server: srv})
	require.NoError(t, err)
	require.True(t, s.Capabilities().Tasks.ToolCallsAsTasks(), "%+v", s.Capabilities().Tasks)

	// Without a tools/list first: the engine learns from the server's
	// -32601 that the tool needs a task.
	res, err := s.CallTool(ctx, "simulate-research-query", map[string]any{"topic": "python", "ambiguous": true})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.Contains(t, joinText(res), "python (snake)")
	mu.Lock()
	require.Len(t, elicitedFor, 1, "one elicitation, for the task")
	related, _ := elicitedFor[0].(map[string]any)
	mu.Unlock()
	require.NotEmpty(t, related["taskId"], "the elicitation names its task")

	// The task handle: started, seen working, cancelled, listed.
	task, err := s.StartToolTask(ctx, "simulate-research-query", map[string]any{"topic": "go"}, time.Minute)
	require.NoError(t, err)
	require.NotEmpty(t, task.ID())
	got, err := task.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, task.ID(), got.TaskID)
	require.False(t, got.Status.Terminal(), "a four-second task is not over yet: %+v", got)
	cancelled, err := task.Cancel(ctx)
	require.NoError(t, err)
	require.Equal(t, messages.TaskCancelled, cancelled.Status)
	tasks, err := s.ListTasks(ctx)
	require.NoError(t, err)
	var ids []string
	for _, tk := range tasks {
		ids = append(ids, tk.TaskID)
	}
	require.Contains(t, ids, task.ID())
	// A cancelled task cannot be cancelled again (-32602).
	_, err = task.Cancel(ctx)
	require.ErrorIs(t, err, messages.ErrInvalidParams)
}

// A caller that gives up on a tool running as a task has the task
// cancelled on the server, and gets its own deadline's error.
func TestToolTaskCancelledWhenTheCallerLeaves(t *testing.T) {
	srv := everythingServer(t)
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 60*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "everything", Server: srv})
	require.NoError(t, err)
	_, err = s.ListTools(ctx) // the engine now knows the tool needs a task
	require.NoError(t, err)

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = s.CallTool(short, "simulate-research-query", map[string]any{"topic": "rust"})
	require.ErrorIs(t, err, context.DeadlineExceeded)

	tasks, err := s.ListTasks(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, tasks)
	for _, tk := range tasks {
		assert.Equal(t, messages.TaskCancelled, tk.Status, "task %s", tk.TaskID)
	}
}

// URL-mode elicitation (2025-11-25): declared only with a URLElicitation
// handler; the request path reaches the handler, the error path (-32042)
// is a typed error naming the URL to open, and the same call succeeds once
// it was opened.
func TestReferenceServerURLElicitation(t *testing.T) {
	srv := everythingServer(t)
	ctx := testCtx(t, 60*time.Second)

	plain := newEngine(t, mcpengine.Config{Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
		return &messages.ElicitResult{Action: messages.ElicitActionDecline}, nil
	}})
	s, err := plain.Connect(ctx, mcpengine.SessionConfig{Name: "form-only", Server: srv})
	require.NoError(t, err)
	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	for _, tool := range tools {
		require.NotEqual(t, "trigger-url-elicitation", tool.Name, "the server offers it only to clients that declare URL mode")
	}

	opened := make(chan *messages.ElicitParams, 4)
	e := newEngine(t, mcpengine.Config{URLElicitation: func(_ context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error) {
		opened <- req
		return &messages.ElicitResult{Action: messages.ElicitActionAccept}, nil
	}})
	s, err = e.Connect(ctx, mcpengine.SessionConfig{Name: "url", Server: srv})
	require.NoError(t, err)

	res, err := s.CallTool(ctx, "trigger-url-elicitation", map[string]any{"url": "https://example.com/consent"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.Contains(t, joinText(res), "completed the URL elicitation")
	req := <-opened
	assert.Equal(t, "url", req.Mode)
	assert.Equal(t, "https://example.com/consent", req.URL)
	assert.NotEmpty(t, req.ElicitationID)

	args := map[string]any{"url": "https://example.com/second", "errorPath": true}
	_, err = s.CallTool(ctx, "trigger-url-elicitation", args)
	var required *mcpengine.URLElicitationRequiredError
	require.True(t, errors.As(err, &required), "%T: %v", err, err)
	require.ErrorIs(t, err, messages.ErrURLElicitationRequired)
	require.Len(t, required.Elicitations, 1)
	assert.Equal(t, "url", required.Elicitations[0].Mode)
	assert.NotEmpty(t, required.Elicitations[0].URL)
	// The user opened it; the same call now goes through.
	res, err = s.CallTool(ctx, "trigger-url-elicitation", args)
	require.NoError(t, err)
	assert.Contains(t, joinText(res), "completed the URL elicitation")
}

// A server that does not run tools as tasks is not asked to: the task
// methods fail before any traffic with the capability they lack.
func TestTasksNeedTheServersCapability(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	// Tasks are of 2025-11-25: the handshake era, where a server that does
	// not declare them is refused by the engine itself.
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "demo", Server: engineServe("--era", "legacy")})
	require.NoError(t, err)
	_, err = s.StartToolTask(ctx, "echo", map[string]any{"text": "x"}, 0)
	var capErr *mcpengine.CapabilityError
	require.True(t, errors.As(err, &capErr), "%T: %v", err, err)
	assert.Equal(t, "tasks.requests.tools.call", capErr.Capability)
	_, err = s.ListTasks(ctx)
	require.True(t, errors.As(err, &capErr), "%T: %v", err, err)
	assert.Equal(t, "tasks.list", capErr.Capability)
	_, err = s.ResumeToolTask("t1").Get(ctx)
	require.True(t, errors.As(err, &capErr), "%T: %v", err, err)
	// A tool error on such a server is the tool's answer: no task retry.
	res, err := s.CallTool(ctx, "fail", nil)
	require.NoError(t, err)
	require.True(t, res.IsError)
}
