package messages

// Tool is a tool a server offers.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"` // 2025-06-18+
	Description  string           `json:"description,omitempty"`
	InputSchema  RawMessage       `json:"inputSchema"`
	OutputSchema RawMessage       `json:"outputSchema,omitempty"` // 2025-06-18+
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`  // 2025-03-26+
	Execution    *ToolExecution   `json:"execution,omitempty"`    // 2025-11-25
	Icons        []Icon           `json:"icons,omitempty"`        // 2025-11-25
	Meta         map[string]any   `json:"_meta,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. They are untrusted
// unless the server is. Hints are pointers because absent and false differ
// (destructiveHint and openWorldHint default to true).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolExecution says how a tool may be run (2025-11-25).
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"` // "forbidden" | "optional" | "required"
}

// TaskMetadata asks for a request to run as a task (2025-11-25).
type TaskMetadata struct {
	TTL *int64 `json:"ttl,omitempty"` // milliseconds
}

// ListToolsParams are the params of tools/list.
type ListToolsParams = PaginatedParams

// ListToolsResult is one page of tools.
type ListToolsResult struct {
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

func (*ListToolsResult) fromServer() {}

// CallToolParams are the params of tools/call. Arguments is any value that
// marshals to a JSON object (a map, a struct or a RawMessage).
type CallToolParams struct {
	Name      string         `json:"name"`
	Arguments any            `json:"arguments,omitempty"`
	Task      *TaskMetadata  `json:"task,omitempty"` // 2025-11-25
	Meta      map[string]any `json:"_meta,omitempty"`
}

func (*CallToolParams) fromClient() {}

// CallToolResult is a tool's output. A tool's own failure is reported with
// IsError, not as a JSON-RPC error.
type CallToolResult struct {
	Content           []ContentBlock `json:"content"`
	StructuredContent RawMessage     `json:"structuredContent,omitempty"` // 2025-06-18+
	IsError           bool           `json:"isError,omitempty"`
	Meta              Meta           `json:"_meta,omitempty"`
}

func (*CallToolResult) fromServer() {}
