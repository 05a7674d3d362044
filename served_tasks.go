package mcpengine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// servedTasks runs the task-augmented requests a server sends this client
// (2025-11-25: sampling/createMessage and elicitation/create whose params
// carry task) and answers the server's tasks/get, tasks/result, tasks/list
// and tasks/cancel about them. The embedder's handler is the same one that
// answers the request without a task: the engine keeps the task's status
// and result, so that a handler never learns it ran as one.
//
// One per session that has a sampling or elicitation handler. Its methods run on the handler goroutines the session
// starts for each server request, concurrently: mu guards the rest.
type servedTasks struct {
	ctx    context.Context // ends at close: every running handler is cancelled
	cancel context.CancelFunc

	mu      sync.Mutex
	tasks   map[string]*servedTask
	order   []string      // creation order, for tasks/list
	running int           // task goroutines not yet returned
	idle    chan struct{} // closed when running drops to 0 while close waits
	closed  bool
}

// servedTask is one task; its fields are guarded by servedTasks.mu, except
// done, closed once when the status becomes terminal.
type servedTask struct {
	task   messages.Task
	cancel context.CancelFunc
	done   chan struct{}
	result any
	err    error
}

func newServedTasks() *servedTasks {
	ctx, cancel := context.WithCancel(context.Background())
	return &servedTasks{ctx: ctx, cancel: cancel, tasks: map[string]*servedTask{}}
}

// capability declares tasks for the request types that have a handler.
func servedTasksCapability(sampling, elicitation bool) *messages.TasksCapability {
	if !sampling && !elicitation {
		return nil
	}
	c := &messages.TasksCapability{List: &messages.EmptyCapability{}, Cancel: &messages.EmptyCapability{}, Requests: &messages.TaskRequestsCapability{}}
	if sampling {
		c.Requests.Sampling = &messages.TaskSamplingCapability{CreateMessage: &messages.EmptyCapability{}}
	}
	if elicitation {
		c.Requests.Elicitation = &messages.TaskElicitationCapability{Create: &messages.EmptyCapability{}}
	}
	return c
}

var taskMember = []byte(`"task"`)

// augment answers a request that asks to run as a task with the task,
// running h on a goroutine of the store's; any other request goes to h as
// before.
func (st *servedTasks) augment(h actors.ServerRequestHandler) actors.ServerRequestHandler {
	return func(ctx context.Context, params messages.RawMessage) (any, error) {
		var p struct {
			Task *messages.TaskMetadata `json:"task"`
		}
		if !bytes.Contains(params, taskMember) || messages.Unmarshal(params, &p) != nil || p.Task == nil {
			return h(ctx, params)
		}
		t, err := st.start(p.Task, func(ctx context.Context) (any, error) { return h(ctx, params) })
		if err != nil {
			return nil, err
		}
		return &messages.CreateTaskResult{Task: t}, nil
	}
}

// start records a working task and runs fn for it.
func (st *servedTasks) start(meta *messages.TaskMetadata, fn func(context.Context) (any, error)) (messages.Task, error) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	now := taskTime(time.Now())
	ctx, cancel := context.WithCancel(st.ctx)
	t := &servedTask{
		task:   messages.Task{TaskID: hex.EncodeToString(id[:]), Status: messages.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: meta.TTL},
		cancel: cancel,
		done:   make(chan struct{}),
	}
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		cancel()
		return messages.Task{}, &RPCError{Code: messages.CodeInternalError, Message: "the client is closing"}
	}
	st.tasks[t.task.TaskID] = t
	st.order = append(st.order, t.task.TaskID)
	st.running++
	snapshot := t.task
	st.mu.Unlock()
	go func() { // Owner: st. Exits when fn returns; close cancels ctx and waits (within its ctx).
		defer cancel()
		res, err := fn(ctx)
		st.finish(t, res, err)
	}()
	return snapshot, nil
}

// finish records the handler's outcome, unless the task was cancelled.
func (st *servedTasks) finish(t *servedTask, res any, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.running--; st.running == 0 && st.idle != nil {
		close(st.idle)
		st.idle = nil
	}
	if t.task.Status.Terminal() {
		return
	}
	t.result, t.err = res, err
	t.task.Status = messages.TaskCompleted
	if err != nil {
		t.task.Status, t.task.StatusMessage = messages.TaskFailed, err.Error()
	}
	t.task.LastUpdatedAt = taskTime(time.Now())
	close(t.done)
}

// handlers are the answers to the server's tasks/* requests.
func (st *servedTasks) handlers() map[string]actors.ServerRequestHandler {
	return map[string]actors.ServerRequestHandler{
		messages.MethodTasksGet:    st.get,
		messages.MethodTasksResult: st.result,
		messages.MethodTasksList:   st.list,
		messages.MethodTasksCancel: st.cancelTask,
	}
}

var errUnknownTask = &RPCError{Code: messages.CodeInvalidParams, Message: "unknown task"}

func (st *servedTasks) lookup(params messages.RawMessage) (*servedTask, error) {
	var p messages.TaskIDParams
	if err := messages.Unmarshal(params, &p); err != nil {
		return nil, &RPCError{Code: messages.CodeInvalidParams, Message: err.Error()}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if t := st.tasks[p.TaskID]; t != nil {
		return t, nil
	}
	return nil, errUnknownTask
}

func (st *servedTasks) get(_ context.Context, params messages.RawMessage) (any, error) {
	t, err := st.lookup(params)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	task := t.task
	return &task, nil
}

// result waits for the task to end, then answers what the request itself
// would have: its result, with the task named in _meta, or its error.
func (st *servedTasks) result(ctx context.Context, params messages.RawMessage) (any, error) {
	t, err := st.lookup(params)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	st.mu.Lock()
	res, rerr, status, id := t.result, t.err, t.task.Status, t.task.TaskID
	st.mu.Unlock()
	if status == messages.TaskCancelled {
		return nil, &RPCError{Code: messages.CodeInvalidParams, Message: "the task was cancelled"}
	}
	if rerr != nil {
		return nil, rerr
	}
	raw, err := messages.Marshal(res)
	if err != nil {
		return nil, err
	}
	related := messages.AppendJSONString([]byte(`{"taskId":`), id)
	return messages.WithMeta(raw, messages.MetaField{Key: messages.MetaKeyRelatedTask, Value: append(related, '}')}), nil
}

func (st *servedTasks) list(context.Context, messages.RawMessage) (any, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := &messages.ListTasksResult{Tasks: make([]messages.Task, 0, len(st.order))}
	for _, id := range st.order {
		out.Tasks = append(out.Tasks, st.tasks[id].task)
	}
	return out, nil
}

func (st *servedTasks) cancelTask(_ context.Context, params messages.RawMessage) (any, error) {
	t, err := st.lookup(params)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.task.Status.Terminal() {
		return nil, &RPCError{Code: messages.CodeInvalidParams, Message: "the task already ended: " + string(t.task.Status)}
	}
	t.cancel()
	t.task.Status, t.task.StatusMessage = messages.TaskCancelled, "cancelled by the server"
	t.task.LastUpdatedAt = taskTime(time.Now())
	close(t.done)
	task := t.task
	return &task, nil
}

// close cancels every running task and waits, within ctx, for their
// handlers to return. A nil st (a session without sampling or elicitation
// handlers runs no task) has nothing to close.
func (st *servedTasks) close(ctx context.Context) error {
	if st == nil {
		return nil
	}
	st.mu.Lock()
	st.closed = true
	st.cancel()
	if st.running == 0 {
		st.mu.Unlock()
		return nil
	}
	if st.idle == nil { // a second Close waits on the same channel
		st.idle = make(chan struct{})
	}
	idle := st.idle
	st.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func taskTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
