package messages

// ListChangedParams are the (optional) params of the server's
// notifications/{tools,resources,prompts}/list_changed.
type ListChangedParams struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*ListChangedParams) fromServer() {}
