package messages

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"` // "none" | "thisServer" | "allServers"
	Temperature      *float64          `json:"temperature,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	Metadata         RawMessage        `json:"metadata,omitempty"`
	Tools            []Tool            `json:"tools,omitempty"`      // 2025-11-25
	ToolChoice       *ToolChoice       `json:"toolChoice,omitempty"` // 2025-11-25
	Task             *TaskMetadata     `json:"task,omitempty"`       // 2025-11-25
	Meta             map[string]any    `json:"_meta,omitempty"`
}

func (*CreateMessageParams) fromServer() {}

// ToolChoice controls tool use in sampling (2025-11-25).
type ToolChoice struct {
	Mode string `json:"mode,omitempty"` // "auto" | "required" | "none"
}

// SamplingMessage is one message of a sampling conversation. Content is
// one content block, or (2025-11-25) an array of them, so it is kept raw;
// use Blocks and SetContent.
type SamplingMessage struct {
	Role    string         `json:"role"`
	Content RawMessage     `json:"content"`
	Meta    map[string]any `json:"_meta,omitempty"` // 2025-11-25
}

// Blocks decodes the message's content.
func (m *SamplingMessage) Blocks() ([]ContentBlock, error) { return DecodeSamplingContent(m.Content) }

// SetContent encodes blocks as the message's content.
func (m *SamplingMessage) SetContent(blocks ...ContentBlock) error {
	raw, err := EncodeSamplingContent(blocks...)
	if err == nil {
		m.Content = raw
	}
	return err
}

// ModelPreferences are the server's hints for model choice. Priorities are
// 0 to 1.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names (a substring of) a preferred model.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// CreateMessageResult is the client's sampled message. Content follows the
// same single-or-array rule as SamplingMessage.
type CreateMessageResult struct {
	Role       string         `json:"role"`
	Content    RawMessage     `json:"content"`
	Model      string         `json:"model"`
	StopReason string         `json:"stopReason,omitempty"` // "endTurn" | "stopSequence" | "maxTokens" | "toolUse" | other
	Meta       map[string]any `json:"_meta,omitempty"`
}

func (*CreateMessageResult) fromClient() {}

// Blocks decodes the result's content.
func (r *CreateMessageResult) Blocks() ([]ContentBlock, error) {
	return DecodeSamplingContent(r.Content)
}

// SetContent encodes blocks as the result's content.
func (r *CreateMessageResult) SetContent(blocks ...ContentBlock) error {
	raw, err := EncodeSamplingContent(blocks...)
	if err == nil {
		r.Content = raw
	}
	return err
}
