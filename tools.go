package mcpengine

import (
	"context"
	"iter"

	"github.com/mcpengine/mcpengine/messages"
)

// ListTools returns every tool, following pagination cursors; Tools
// gives them one at a time instead. The session remembers which tools
// must run as tasks, and in 2026-07-28 which arguments CallTool mirrors
// into Mcp-Param-* headers (x-mcp-header); a tool whose x-mcp-header
// annotations break SEP-2243's rules is left out (logged as a warning).
func (s *Session) ListTools(ctx context.Context, opts ...CallOption) ([]messages.Tool, error) {
	tools, err := collect(s.Tools(ctx, opts...))
	s.tasks.learn(tools)
	return s.learnHeaders(tools), err
}

// Tools iterates over every tool, requesting the next page only when
// the loop reaches it: breaking out early sends no further request. A
// failure comes as the last pair, with the error.
//
//	for t, err := range s.Tools(ctx) { ... }
func (s *Session) Tools(ctx context.Context, opts ...CallOption) iter.Seq2[messages.Tool, error] {
	return pages(ctx, s, messages.MethodToolsList,
		func(r *messages.ListToolsResult) []messages.Tool { return r.Tools },
		func(r *messages.ListToolsResult) string { return r.NextCursor }, opts)
}

// ListToolsPage returns one page; pass the previous page's NextCursor.
func (s *Session) ListToolsPage(ctx context.Context, cursor string, opts ...CallOption) (*messages.ListToolsResult, error) {
	return listPage[messages.ListToolsResult](ctx, s, messages.MethodToolsList, cursor, opts)
}

// CallTool calls a tool. A tool that failed reports it in the result
// (IsError true) rather than as an error: err is for protocol and
// connection failures only. A tool that must run as a task (2025-11-25,
// execution.taskSupport "required") runs as one: CallTool waits for it
// within ctx, answering the requests it makes meanwhile, and cancels it on
// the server if ctx ends first (StartToolTask hands the task over instead).
func (s *Session) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*messages.CallToolResult, error) {
	return s.callTool(ctx, name, args, opts)
}

// CallToolAsync calls a tool and returns a Future of its decoded result
// at once; Await gives what CallTool would have.
func (s *Session) CallToolAsync(ctx context.Context, name string, args any, opts ...CallOption) *Future[*messages.CallToolResult] {
	opts = s.withParamHeaders(name, args, opts)
	return callAsync(ctx, s, messages.MethodToolsCall, &messages.CallToolParams{Name: name, Arguments: args}, opts, decodeResult[messages.CallToolResult])
}
