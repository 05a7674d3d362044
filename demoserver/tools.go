package demoserver

import (
	"github.com/bytedance/sonic"

	"github.com/mcpengine/mcpengine/messages"
)

// tool is one demo tool.
type tool struct {
	def  messages.Tool
	slow bool // may block: runs on its own goroutine, cancellable
	run  func(r *request, buf []byte) ([]byte, *messages.WireError)
}

func hints(readOnly, destructive, idempotent, openWorld bool) *messages.ToolAnnotations {
	return &messages.ToolAnnotations{
		ReadOnlyHint:    &readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  &idempotent,
		OpenWorldHint:   &openWorld,
	}
}

func schema(s string) messages.RawMessage { return messages.RawMessage(s) }

// demoTools returns the tools in listing order.
func demoTools() []*tool {
	return []*tool{
		{def: messages.Tool{
			Name: "echo", Title: "Echo", Description: "Returns its text argument unchanged.",
			InputSchema:  schema(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			OutputSchema: schema(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Annotations:  hints(true, false, true, false),
		}, run: toolEcho},
		{def: messages.Tool{
			Name: "add", Title: "Add", Description: "Adds two numbers.",
			InputSchema:  schema(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
			OutputSchema: schema(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`),
			Annotations:  hints(true, false, true, false),
		}, run: toolAdd},
		{def: messages.Tool{
			Name: "sleep", Title: "Sleep", Description: "Waits ms milliseconds; honours cancellation.",
			InputSchema: schema(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`),
			Annotations: hints(true, false, true, false),
		}, slow: true, run: toolSleep},
		{def: messages.Tool{
			Name: "progress", Title: "Progress", Description: "Sends steps progress notifications, intervalMs apart, then returns.",
			InputSchema: schema(`{"type":"object","properties":{"steps":{"type":"integer","minimum":0},"intervalMs":{"type":"integer","minimum":0}},"required":["steps"]}`),
			Annotations: hints(true, false, true, false),
		}, slow: true, run: toolProgress},
		{def: messages.Tool{
			Name: "fail", Title: "Fail", Description: "Returns a tool error (isError) with the given message.",
			InputSchema: schema(`{"type":"object","properties":{"message":{"type":"string"}}}`),
			Annotations: hints(true, false, true, false),
		}, run: toolFail},
		{def: messages.Tool{
			Name: "large", Title: "Large", Description: "Returns a text of the given number of bytes.",
			InputSchema: schema(`{"type":"object","properties":{"bytes":{"type":"integer","minimum":0}},"required":["bytes"]}`),
			Annotations: hints(true, false, true, false),
		}, slow: true, run: toolLarge},
		{def: messages.Tool{
			Name: "sample", Title: "Sample", Description: "Asks the client to sample an LLM (sampling/createMessage) and returns the text; in 2026-07-28 through input_required, rounds times (default 1).",
			InputSchema: schema(`{"type":"object","properties":{"prompt":{"type":"string"},"rounds":{"type":"integer","minimum":1}},"required":["prompt"]}`),
			Annotations: hints(true, false, false, true),
		}, slow: true, run: toolSample},
		{def: messages.Tool{
			Name: "elicit", Title: "Elicit", Description: "Asks the user for input (elicitation/create) and returns the answer; in 2026-07-28 through input_required, rounds times (default 1).",
			InputSchema: schema(`{"type":"object","properties":{"message":{"type":"string"},"rounds":{"type":"integer","minimum":1}},"required":["message"]}`),
			Annotations: hints(true, false, false, true),
		}, slow: true, run: toolElicit},
		{def: messages.Tool{
			Name: "roots", Title: "Roots", Description: "Asks the client for its roots (roots/list) and returns their URIs; in 2026-07-28 through input_required, rounds times (default 1).",
			InputSchema: schema(`{"type":"object","properties":{"rounds":{"type":"integer","minimum":1}}}`),
			Annotations: hints(true, false, false, true),
		}, slow: true, run: toolRoots},
		{def: messages.Tool{
			Name: "log", Title: "Log", Description: "Sends a notifications/message if level is at or above the level set with logging/setLevel.",
			InputSchema: schema(`{"type":"object","properties":{"level":{"type":"string","enum":["debug","info","notice","warning","error","critical","alert","emergency"]},"message":{"type":"string"}},"required":["level","message"]}`),
			Annotations: hints(true, false, false, false),
		}, run: toolLog},
		{def: messages.Tool{
			Name: "notify", Title: "Notify", Description: "Sends notifications/{kind}/list_changed (in 2026-07-28 on the listens that asked for it; listen_end ends every listen gracefully).",
			InputSchema: schema(`{"type":"object","properties":{"kind":{"type":"string","enum":["tools","resources","prompts","listen_end"]}},"required":["kind"]}`),
			Annotations: hints(false, false, false, false),
		}, run: toolNotify},
		{def: messages.Tool{
			Name: "touch", Title: "Touch", Description: "Sends notifications/resources/updated for uri if the client subscribed to it.",
			InputSchema: schema(`{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`),
			Annotations: hints(false, false, false, false),
		}, run: toolTouch},
		{def: messages.Tool{
			Name: "meta", Title: "Meta", Description: "Returns the _meta object of its own request as JSON text (trace context propagation checks).",
			InputSchema: schema(`{"type":"object"}`),
			Annotations: hints(true, false, true, false),
		}, run: toolMeta},
	}
}

func handleToolsList(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.PaginatedParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	all := r.s.srv.tools
	lo, hi, next, werr := page("tools", p.Cursor, len(all), r.s.srv.opts.PageSize)
	if werr != nil {
		return buf, werr
	}
	res := messages.ListToolsResult{Tools: make([]messages.Tool, 0, hi-lo), NextCursor: next}
	for _, t := range all[lo:hi] {
		res.Tools = append(res.Tools, t.def)
	}
	return appendMarshal(buf, &res)
}

// callParams is tools/call's params with the arguments kept raw, so each
// tool decodes them into its own small struct.
type callParams struct {
	Name      string                 `json:"name"`
	Arguments sonic.NoCopyRawMessage `json:"arguments"`
	Meta      *struct {
		ProgressToken sonic.NoCopyRawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// prepareToolsCall decodes the params on the reader and tells whether the
// tool is slow.
func prepareToolsCall(r *request) (bool, *messages.WireError) {
	var p callParams
	if len(r.params) == 0 {
		return false, invalidParams("tools/call needs params")
	}
	if err := decodeJSON(r.params, &p); err != nil {
		return false, invalidParams(err.Error())
	}
	t, ok := r.s.srv.toolMap[p.Name]
	if !ok {
		return false, invalidParams("unknown tool: " + p.Name)
	}
	r.s.srv.stats.countTool(p.Name)
	r.tool = t
	r.args = messages.RawMessage(p.Arguments)
	if p.Meta != nil && len(p.Meta.ProgressToken) > 0 && string(p.Meta.ProgressToken) != "null" {
		r.progressToken = messages.RawMessage(p.Meta.ProgressToken)
	}
	return t.slow, nil
}

func handleToolsCall(r *request, buf []byte) ([]byte, *messages.WireError) {
	return r.tool.run(r, buf)
}

// decodeArgs decodes a tool's arguments. A failure is reported as a tool
// error result (isError), as the specification asks for input errors.
func decodeArgs(r *request, v any) (ok bool, errText string) {
	if len(r.args) == 0 {
		return true, ""
	}
	if err := decodeJSON(r.args, v); err != nil {
		return false, "invalid arguments: " + err.Error()
	}
	return true, ""
}

// toolError appends an isError result with the given text.
func toolError(buf []byte, text string) ([]byte, *messages.WireError) {
	return appendTextResult(buf, text, nil, true), nil
}
