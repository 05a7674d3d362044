package messages

// Capabilities are declared by presence: a nil pointer means "not
// supported", a non-nil pointer to an empty struct marshals as {} and means
// "supported, no options". Sub-objects added in later versions are pointers
// too, so a zero value never emits anything an older peer does not know.

// ClientCapabilities are what the client offers in initialize.
type ClientCapabilities struct {
	Roots        *RootsCapability       `json:"roots,omitempty"`
	Sampling     *SamplingCapability    `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability `json:"elicitation,omitempty"` // 2025-06-18+
	Experimental map[string]any         `json:"experimental,omitempty"`
	Tasks        *TasksCapability       `json:"tasks,omitempty"` // 2025-11-25
}

// RootsCapability declares roots/list support.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability declares sampling/createMessage support. Context and
// Tools (2025-11-25) say the client honours includeContext and tool use.
type SamplingCapability struct {
	Context *SamplingContextCapability `json:"context,omitempty"`
	Tools   *SamplingToolsCapability   `json:"tools,omitempty"`
}

// SamplingContextCapability declares support for includeContext other than
// "none" (2025-11-25).
type SamplingContextCapability struct{}

// SamplingToolsCapability declares support for tools in sampling
// (2025-11-25).
type SamplingToolsCapability struct{}

// ElicitationCapability declares elicitation/create support (2025-06-18).
// In 2025-11-25 an empty object means form mode only.
type ElicitationCapability struct {
	Form *ElicitationFormCapability `json:"form,omitempty"`
	URL  *ElicitationURLCapability  `json:"url,omitempty"`
}

// ElicitationFormCapability declares form-mode elicitation (2025-11-25).
type ElicitationFormCapability struct{}

// ElicitationURLCapability declares URL-mode elicitation (2025-11-25).
type ElicitationURLCapability struct{}

// ServerCapabilities are what the server declares in its InitializeResult.
type ServerCapabilities struct {
	Tools        *ToolsCapability       `json:"tools,omitempty"`
	Resources    *ResourcesCapability   `json:"resources,omitempty"`
	Prompts      *PromptsCapability     `json:"prompts,omitempty"`
	Logging      *LoggingCapability     `json:"logging,omitempty"`
	Completions  *CompletionsCapability `json:"completions,omitempty"` // 2025-03-26+
	Experimental map[string]any         `json:"experimental,omitempty"`
	Tasks        *TasksCapability       `json:"tasks,omitempty"` // 2025-11-25
}

// ToolsCapability declares tools/list and tools/call.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability declares the resources methods.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// PromptsCapability declares prompts/list and prompts/get.
type PromptsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// LoggingCapability declares logging/setLevel and notifications/message.
type LoggingCapability struct{}

// CompletionsCapability declares completion/complete.
type CompletionsCapability struct{}

// Has reports whether the server declared the capability at path, as the
// method table names them ("tools", "resources.subscribe", "tasks.list" …).
// An unknown path is not declared.
func (c *ServerCapabilities) Has(path string) bool {
	switch path {
	case "tools":
		return c.Tools != nil
	case "resources":
		return c.Resources != nil
	case "resources.subscribe":
		return c.Resources != nil && c.Resources.Subscribe
	case "prompts":
		return c.Prompts != nil
	case "logging":
		return c.Logging != nil
	case "completions":
		return c.Completions != nil
	case "tasks":
		return c.Tasks != nil
	case "tasks.list":
		return c.Tasks != nil && c.Tasks.List != nil
	case "tasks.cancel":
		return c.Tasks != nil && c.Tasks.Cancel != nil
	}
	return false
}
