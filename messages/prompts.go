package messages

// Prompt is a prompt template a server offers.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"` // 2025-06-18+
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"` // 2025-11-25
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// PromptArgument is one argument a prompt accepts.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams = PaginatedParams

// ListPromptsResult is one page of prompts.
type ListPromptsResult struct {
	Prompts    []Prompt `json:"prompts"`
	NextCursor string   `json:"nextCursor,omitempty"`
	Meta       Meta     `json:"_meta,omitempty"`
}

func (*ListPromptsResult) fromServer() {}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Meta      map[string]any    `json:"_meta,omitempty"`
}

func (*GetPromptParams) fromClient() {}

// GetPromptResult is a rendered prompt.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        Meta            `json:"_meta,omitempty"`
}

func (*GetPromptResult) fromServer() {}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string       `json:"role"`
	Content ContentBlock `json:"content"`
}
