package gateway

import (
	"context"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// upstreamSession is one session of a server's pool: an engine session
// of this process (localSession), or a cluster session owned by any
// member (clusterSession). Safe for concurrent use.
type upstreamSession interface {
	Name() string
	State() mcpengine.State
	LastError() error
	// restarts counts the session's reconnects.
	restarts() uint64
	// owner is the cluster member holding the session ("" for a local
	// one).
	owner() string
	ProtocolVersion() string
	Capabilities() messages.ServerCapabilities
	ServerInfo() messages.Implementation
	Instructions() string
	// call sends one request and returns the server's raw result. A
	// session that is not ready refuses it unsent (mcpengine.ErrNotReady)
	// where it can tell; progress, when set, gets the server's progress
	// on it before call returns; servesRequests says the caller's client
	// may be asked (sampling, elicitation, roots) while it runs.
	call(ctx context.Context, method string, params any, progress func(messages.ProgressParams), servesRequests bool) (messages.RawMessage, error)
	Notify(ctx context.Context, method string, params any) error
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string) error
}

// localSession is an engine session of the gateway's own engine.
type localSession struct{ *mcpengine.Session }

func (s localSession) restarts() uint64 { return s.Stats().Restarts }

func (s localSession) owner() string { return "" }

func (s localSession) call(ctx context.Context, method string, params any, progress func(messages.ProgressParams), _ bool) (messages.RawMessage, error) {
	// FailFast: a session that stopped being ready since the pool picked
	// it refuses the call unsent, and the gateway tries another.
	opts := []mcpengine.CallOption{mcpengine.FailFast()}
	if progress != nil {
		opts = append(opts, mcpengine.WithProgress(progress))
	}
	if method == messages.MethodToolsCall && s.Capabilities().Tasks.ToolCallsAsTasks() {
		if raw, ok := params.(messages.RawMessage); ok {
			return s.callTool(ctx, raw, opts)
		}
	}
	return s.Call(ctx, method, params, opts...)
}

// callTool forwards a tools/call to a server that runs tool calls as
// tasks (2025-11-25). Its tools whose execution.taskSupport is "required"
// refuse a plain call: Session.CallTool runs them as tasks, waits for the
// result and cancels the task if the client leaves, so the gateway's
// clients need not know about tasks. A client that asked for a task itself
// (params.task) gets the server's answer unchanged.
func (s localSession) callTool(ctx context.Context, raw messages.RawMessage, opts []mcpengine.CallOption) (messages.RawMessage, error) {
	var p struct {
		Name      string              `json:"name"`
		Arguments messages.RawMessage `json:"arguments,omitempty"`
		Task      messages.RawMessage `json:"task,omitempty"`
	}
	if err := messages.Unmarshal(raw, &p); err != nil || p.Task != nil || p.Name == "" {
		return s.Call(ctx, messages.MethodToolsCall, raw, opts...)
	}
	var args any
	if len(p.Arguments) > 0 {
		args = p.Arguments
	}
	res, err := s.CallTool(ctx, p.Name, args, opts...)
	if err != nil {
		return nil, err
	}
	return messages.Marshal(res)
}
