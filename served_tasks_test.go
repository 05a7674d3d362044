package mcpengine

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func taskParams(id string) messages.RawMessage {
	return messages.RawMessage(`{"taskId":"` + id + `"}`)
}

// What a server's tasks/* requests get, beyond what the reference server
// exercises (node_peer_served_tasks_test.go): the request without task is
// answered directly, the result names its task, a cancel ends a running
// handler and is final, unknown ids are invalid params, and close stops
// what still runs.
func TestServedTasksAnswerTheServersTaskRequests(t *testing.T) {
	st := newServedTasks()
	release := make(chan struct{})
	h := st.augment(func(ctx context.Context, params messages.RawMessage) (any, error) {
		if string(params) == `{"block":true,"task":{}}` {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		<-release
		return map[string]any{"ok": true}, nil
	})
	ctx := context.Background()

	close(release)
	direct, err := h(ctx, messages.RawMessage(`{"x":1}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ok": true}, direct, "no task asked: answered directly")

	created, err := h(ctx, messages.RawMessage(`{"task":{"ttl":60000}}`))
	require.NoError(t, err)
	done := created.(*messages.CreateTaskResult).Task
	assert.Equal(t, messages.TaskWorking, done.Status)
	require.NotNil(t, done.TTL)
	assert.EqualValues(t, 60000, *done.TTL)

	res, err := st.result(ctx, taskParams(done.TaskID))
	require.NoError(t, err)
	assert.JSONEq(t, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+done.TaskID+`"}},"ok":true}`, string(res.(messages.RawMessage)))
	got, err := st.get(ctx, taskParams(done.TaskID))
	require.NoError(t, err)
	assert.Equal(t, messages.TaskCompleted, got.(*messages.Task).Status)

	created, err = h(ctx, messages.RawMessage(`{"block":true,"task":{}}`))
	require.NoError(t, err)
	running := created.(*messages.CreateTaskResult).Task
	cancelled, err := st.cancelTask(ctx, taskParams(running.TaskID))
	require.NoError(t, err)
	assert.Equal(t, messages.TaskCancelled, cancelled.(*messages.Task).Status)
	_, err = st.cancelTask(ctx, taskParams(running.TaskID))
	var rpc *RPCError
	require.True(t, errors.As(err, &rpc))
	assert.Equal(t, int64(messages.CodeInvalidParams), rpc.Code, "a terminal task cannot be cancelled")
	_, err = st.result(ctx, taskParams(running.TaskID))
	require.True(t, errors.As(err, &rpc))

	list, err := st.list(ctx, nil)
	require.NoError(t, err)
	tasks := list.(*messages.ListTasksResult).Tasks
	require.Len(t, tasks, 2)
	assert.Equal(t, []string{done.TaskID, running.TaskID}, []string{tasks[0].TaskID, tasks[1].TaskID})

	_, err = st.get(ctx, taskParams("nope"))
	require.True(t, errors.As(err, &rpc))
	assert.Equal(t, int64(messages.CodeInvalidParams), rpc.Code)

	// A handler still running when the session closes is cancelled and
	// waited for (goleak checks nothing is left).
	_, err = h(ctx, messages.RawMessage(`{"block":true,"task":{}}`))
	require.NoError(t, err)
	require.NoError(t, st.close(ctx))
	_, err = h(ctx, messages.RawMessage(`{"task":{}}`))
	assert.Error(t, err, "no task starts once closed")
}

func TestServedTasksAreDeclaredOnlyWithAHandler(t *testing.T) {
	assert.Nil(t, servedTasksCapability(false, false))
	c := servedTasksCapability(true, false)
	require.NotNil(t, c)
	assert.NotNil(t, c.Requests.Sampling)
	assert.Nil(t, c.Requests.Elicitation)
	assert.NotNil(t, c.List)
	assert.NotNil(t, c.Cancel)
}
