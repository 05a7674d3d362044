package mcpengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// The reference server's trigger-*-request-async tools (registered only
// for a client that declares tasks for sampling and elicitation) send
// sampling/createMessage and elicitation/create with params.task, then poll
// the client's tasks/get and fetch tasks/result: the engine runs the
// embedder's ordinary handlers as those tasks and answers for them.
func TestReferenceServerRunsItsRequestsAsTasksOnTheClient(t *testing.T) {
	srv := everythingServer(t)
	sampled := make(chan *messages.CreateMessageParams, 1)
	e := newEngine(t, mcpengine.Config{
		Sampling: func(_ context.Context, req *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			sampled <- req
			return &messages.CreateMessageResult{Role: "assistant", Model: "task-model", Content: mustSampling(messages.TextContent("sampled as a task"))}, nil
		},
		Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	ctx := testCtx(t, 60*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "everything", Server: srv})
	require.NoError(t, err)
	require.Equal(t, messages.Version20251125, s.ProtocolVersion())

	res, err := s.CallTool(ctx, "trigger-sampling-request-async", map[string]any{"prompt": "hello"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	text := joinText(res)
	assert.Contains(t, text, "[COMPLETED]", text)
	assert.Contains(t, text, "Task created: ", "the client answered with a task")
	assert.Regexp(t, `Poll \d+: completed`, text, "tasks/get reported the task's end")
	assert.Contains(t, text, "sampled as a task", "tasks/result gave the handler's result")
	assert.Contains(t, text, "task-model")
	req := <-sampled
	assert.NotNil(t, req.Task, "the handler sees the request as the server sent it")

	res, err = s.CallTool(ctx, "trigger-elicitation-request-async", nil)
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	text = joinText(res)
	assert.Contains(t, text, "[COMPLETED]", text)
	assert.Contains(t, text, "Ada")
}
