package mcpengine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// Tasks (2025-11-25, experimental in that revision): a tools/call sent
// with params.task is answered at once with a task; the tool's result is
// fetched with tasks/result once the task ends. CallTool does this by
// itself for a tool that requires it (execution.taskSupport "required"),
// so a caller sees one call; StartToolTask hands the task to the caller.

// Task polling bounds: the server's pollInterval is honoured inside them.
const (
	defaultTaskPoll = 500 * time.Millisecond
	minTaskPoll     = 20 * time.Millisecond
	maxTaskPoll     = 5 * time.Second
	// cancelGrace bounds the tasks/cancel sent when the caller's context
	// ends while the engine waits for a task it started for CallTool.
	cancelGrace = 2 * time.Second
)

// ToolTask is a tools/call running as a task on the server. Its methods
// are safe for concurrent use.
type ToolTask struct {
	s  *Session
	id string

	mu   sync.Mutex
	last messages.Task
}

// StartToolTask calls a tool as a task and returns once the server has
// accepted it. ttl asks the server to keep the task (and its result) that
// long from its creation; 0 leaves it to the server. The server must
// declare tasks.requests.tools.call (a *CapabilityError otherwise) and the
// tool must allow tasks (execution.taskSupport "optional" or "required";
// servers answer -32601 otherwise).
func (s *Session) StartToolTask(ctx context.Context, name string, args any, ttl time.Duration, opts ...CallOption) (*ToolTask, error) {
	caps := s.Capabilities()
	if !caps.Tasks.ToolCallsAsTasks() {
		return nil, &CapabilityError{Method: messages.MethodToolsCall, Capability: "tasks.requests.tools.call"}
	}
	meta := &messages.TaskMetadata{}
	if ttl > 0 {
		ms := ttl.Milliseconds()
		meta.TTL = &ms
	}
	created, err := decode[messages.CreateTaskResult](s.Call(ctx, messages.MethodToolsCall,
		&messages.CallToolParams{Name: name, Arguments: args, Task: meta}, opts...))
	if err != nil {
		return nil, err
	}
	if created.Task.TaskID == "" {
		return nil, &ProtocolError{Method: messages.MethodToolsCall, Reason: "task-augmented tools/call answered without a task id"}
	}
	return &ToolTask{s: s, id: created.Task.TaskID, last: created.Task}, nil
}

// ResumeToolTask returns the handle of a task started earlier (by this or
// another session of the same server: tasks outlive connections, up to
// their ttl).
func (s *Session) ResumeToolTask(taskID string) *ToolTask {
	return &ToolTask{s: s, id: taskID, last: messages.Task{TaskID: taskID}}
}

// ID is the task's id, as the server named it.
func (t *ToolTask) ID() string { return t.id }

// Last is the task's state as the server last reported it.
func (t *ToolTask) Last() messages.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

func (t *ToolTask) record(task *messages.Task) {
	t.mu.Lock()
	t.last = *task
	t.mu.Unlock()
}

// Get asks the server where the task stands (tasks/get).
func (t *ToolTask) Get(ctx context.Context, opts ...CallOption) (*messages.Task, error) {
	task, err := decode[messages.Task](t.s.Call(ctx, messages.MethodTasksGet, &messages.TaskIDParams{TaskID: t.id}, opts...))
	if err != nil {
		return nil, err
	}
	t.record(task)
	return task, nil
}

// Cancel asks the server to stop the task (tasks/cancel; the server must
// declare tasks.cancel). A task already ended cannot be cancelled: the
// server answers -32602.
func (t *ToolTask) Cancel(ctx context.Context, opts ...CallOption) (*messages.Task, error) {
	task, err := decode[messages.Task](t.s.Call(ctx, messages.MethodTasksCancel, &messages.TaskIDParams{TaskID: t.id}, opts...))
	if err != nil {
		return nil, err
	}
	t.record(task)
	return task, nil
}

// Result fetches the tool's result (tasks/result). The server holds the
// answer until the task ends and sends the requests the task needs
// (elicitation, sampling) meanwhile, which the session's handlers answer;
// a task that failed answers with the tool call's own error.
func (t *ToolTask) Result(ctx context.Context, opts ...CallOption) (*messages.CallToolResult, error) {
	return decode[messages.CallToolResult](t.s.Call(ctx, messages.MethodTasksResult, &messages.TaskIDParams{TaskID: t.id}, opts...))
}

// Wait polls the task at the server's pollInterval until it ends or needs
// input, then fetches its result: the way the specification asks a
// requestor to follow a task, without holding a request open while the
// task only works. ctx bounds the whole wait; without a deadline, a
// tasks/result that outlasts the session's request timeout goes back to
// polling.
func (t *ToolTask) Wait(ctx context.Context) (*messages.CallToolResult, error) {
	task := t.Last()
	for {
		for !task.Status.Terminal() && task.Status != messages.TaskInputRequired {
			timer := time.NewTimer(min(max(task.PollEvery(defaultTaskPoll), minTaskPoll), maxTaskPoll))
			select {
			case <-ctx.Done():
				timer.Stop()
				return nil, ctxEndedError(ctx, messages.MethodTasksGet)
			case <-timer.C:
			}
			got, err := t.Get(ctx)
			if err != nil {
				return nil, err
			}
			task = *got
		}
		var opts []CallOption
		if dl, ok := ctx.Deadline(); ok {
			// tasks/result waits for the end on the server: bound it by
			// the caller's deadline, not by the default request timeout.
			opts = append(opts, WithTimeout(max(time.Until(dl), time.Nanosecond)))
		}
		res, err := t.Result(ctx, opts...)
		var te *TimeoutError
		if err == nil || task.Status.Terminal() || !errors.As(err, &te) || te.CallerDeadline || ctx.Err() != nil {
			return res, err
		}
		task.Status = messages.TaskWorking // poll again before the next tasks/result
	}
}

// ListTasks returns every task the server keeps for this client
// (tasks/list; the server must declare tasks.list).
func (s *Session) ListTasks(ctx context.Context, opts ...CallOption) ([]messages.Task, error) {
	return collect(pages(ctx, s, messages.MethodTasksList,
		func(r *messages.ListTasksResult) []messages.Task { return r.Tasks },
		func(r *messages.ListTasksResult) string { return r.NextCursor }, opts))
}

// taskTools remembers which tools of a session's server must run as tasks,
// as its tools/list said (execution.taskSupport "required").
// The call path reads only the flag until one such tool is known.
type taskTools struct {
	any atomic.Bool
	m   sync.Map
}

func (tt *taskTools) learn(tools []messages.Tool) {
	for i := range tools {
		required := tools[i].Execution != nil && tools[i].Execution.TaskSupport == "required"
		tt.m.Store(tools[i].Name, required)
		if required {
			tt.any.Store(true)
		}
	}
}

func (tt *taskTools) required(name string) bool {
	if !tt.any.Load() {
		return false
	}
	v, _ := tt.m.Load(name)
	return v == true
}

func (tt *taskTools) known(name string) bool {
	_, ok := tt.m.Load(name)
	return ok
}

// callTool is CallTool's body: a tool that must run as a task runs as one,
// and its result comes back as the call's. When a tool the engine knows
// nothing about fails on a server that runs tools as tasks (with -32601,
// as the specification prescribes, or as a tool error, as the TypeScript
// SDK answers), one tools/list says whether it needs a task; if so, it is
// called again as one.
func (s *Session) callTool(ctx context.Context, name string, args any, opts []CallOption) (*messages.CallToolResult, error) {
	if s.tasks.required(name) && s.Capabilities().Tasks.ToolCallsAsTasks() {
		return s.callToolAsTask(ctx, name, args, opts)
	}
	opts = s.withParamHeaders(name, args, opts)
	res, err := decode[messages.CallToolResult](s.Call(ctx, messages.MethodToolsCall, &messages.CallToolParams{Name: name, Arguments: args}, opts...))
	failed := errors.Is(err, messages.ErrMethodNotFound) || (err == nil && res.IsError)
	if !failed || s.tasks.known(name) || !s.Capabilities().Tasks.ToolCallsAsTasks() {
		return res, err
	}
	if _, lerr := s.ListTools(ctx); lerr != nil || !s.tasks.required(name) {
		return res, err
	}
	return s.callToolAsTask(ctx, name, args, opts)
}

// callToolAsTask starts the task, waits for it within ctx and cancels it
// on the server when ctx ends first.
func (s *Session) callToolAsTask(ctx context.Context, name string, args any, opts []CallOption) (*messages.CallToolResult, error) {
	t, err := s.StartToolTask(ctx, name, args, 0, opts...)
	if err != nil {
		return nil, err
	}
	res, err := t.Wait(ctx)
	if err != nil && ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
		defer cancel()
		if _, cerr := t.Cancel(cctx); cerr != nil && !errors.Is(cerr, messages.ErrInvalidParams) {
			s.engine.cfg.Logger.Debug("mcpengine: cancelling a task after its caller left", "session", s.name, "task", t.id, "err", cerr)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mcpengine: tool %q as task %s: %w", name, t.id, err)
	}
	return res, nil
}
