package messages

import "time"

// Task methods (2025-11-25, experimental in that revision): a request sent
// with params.task runs as a task on the receiver; its result is fetched
// with tasks/result once the task ends.
const (
	MethodTasksGet    = "tasks/get"    // either side
	MethodTasksResult = "tasks/result" // either side
	MethodTasksList   = "tasks/list"   // either side
	MethodTasksCancel = "tasks/cancel" // either side

	NotificationTasksStatus = "notifications/tasks/status" // either side
)

// MetaKeyRelatedTask is the _meta key under which requests, notifications
// and results that belong to a task name it ({"taskId": …}).
const MetaKeyRelatedTask = "io.modelcontextprotocol/related-task"

// TaskStatus is where a task stands. Completed, failed and cancelled are
// terminal: the status never changes again.
type TaskStatus string

// The task statuses.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the status is final.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is the state of a task as its receiver reports it.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	// TTL is how long the receiver keeps the task from its creation, in
	// milliseconds; nil means without limit.
	TTL *int64 `json:"ttl"`
	// PollInterval is the receiver's suggested tasks/get period, in
	// milliseconds (0: none suggested).
	PollInterval int64 `json:"pollInterval,omitempty"`
	Meta         Meta  `json:"_meta,omitempty"`
}

// PollEvery is the suggested polling period, or def when the receiver
// suggested none.
func (t *Task) PollEvery(def time.Duration) time.Duration {
	if t.PollInterval <= 0 {
		return def
	}
	return time.Duration(t.PollInterval) * time.Millisecond
}

// CreateTaskResult answers a task-augmented request: the task, not yet
// the request's result.
type CreateTaskResult struct {
	Task Task `json:"task"`
	Meta Meta `json:"_meta,omitempty"`
}

func (*CreateTaskResult) fromServer() {}

// TaskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type TaskIDParams struct {
	TaskID string         `json:"taskId"`
	Meta   map[string]any `json:"_meta,omitempty"`
}

func (*TaskIDParams) fromClient() {}

// GetTaskResult is the answer to tasks/get and tasks/cancel: the task.
type GetTaskResult = Task

// ListTasksResult is one page of tasks/list.
type ListTasksResult struct {
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

func (*ListTasksResult) fromServer() {}

// TasksCapability declares task support (2025-11-25): which request types
// may be task-augmented, and whether tasks/list and tasks/cancel are
// served. Present (non-nil) members mean supported.
type TasksCapability struct {
	List     *EmptyCapability        `json:"list,omitempty"`
	Cancel   *EmptyCapability        `json:"cancel,omitempty"`
	Requests *TaskRequestsCapability `json:"requests,omitempty"`
}

// TaskRequestsCapability lists the request types that may run as tasks:
// tools/call on a server; sampling/createMessage and elicitation/create on
// a client.
type TaskRequestsCapability struct {
	Tools       *TaskToolsCapability       `json:"tools,omitempty"`
	Sampling    *TaskSamplingCapability    `json:"sampling,omitempty"`
	Elicitation *TaskElicitationCapability `json:"elicitation,omitempty"`
}

// TaskToolsCapability: tools/call may run as a task.
type TaskToolsCapability struct {
	Call *EmptyCapability `json:"call,omitempty"`
}

// TaskSamplingCapability: sampling/createMessage may run as a task.
type TaskSamplingCapability struct {
	CreateMessage *EmptyCapability `json:"createMessage,omitempty"`
}

// TaskElicitationCapability: elicitation/create may run as a task.
type TaskElicitationCapability struct {
	Create *EmptyCapability `json:"create,omitempty"`
}

// EmptyCapability is a capability without options: present means
// supported.
type EmptyCapability struct{}

// ToolCallsAsTasks reports whether the capability lets tools/call run as
// a task.
func (c *TasksCapability) ToolCallsAsTasks() bool {
	return c != nil && c.Requests != nil && c.Requests.Tools != nil && c.Requests.Tools.Call != nil
}
