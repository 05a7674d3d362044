package messages

// Elicitation modes (2025-11-25); an absent mode means form.
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"
)

// Elicitation actions.
const (
	ElicitActionAccept  = "accept"
	ElicitActionDecline = "decline"
	ElicitActionCancel  = "cancel"
)

// ElicitParams are the params of elicitation/create (2025-06-18): form
// mode (Message, RequestedSchema) or, in 2025-11-25, URL mode (Message,
// URL, ElicitationID).
type ElicitParams struct {
	Mode            string         `json:"mode,omitempty"`
	Message         string         `json:"message"`
	RequestedSchema RawMessage     `json:"requestedSchema,omitempty"`
	URL             string         `json:"url,omitempty"`
	ElicitationID   string         `json:"elicitationId,omitempty"`
	Task            *TaskMetadata  `json:"task,omitempty"`
	Meta            map[string]any `json:"_meta,omitempty"`
}

func (*ElicitParams) fromServer() {}

// ElicitResult is the user's answer. Content is present on accept (form
// mode) and maps field names to strings, numbers, booleans or string
// arrays.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

func (*ElicitResult) fromClient() {}

// ElicitationCompleteParams are the params of
// notifications/elicitation/complete (2025-11-25).
type ElicitationCompleteParams struct {
	ElicitationID string `json:"elicitationId"`
}

func (*ElicitationCompleteParams) fromServer() {}
