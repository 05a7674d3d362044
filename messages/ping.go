package messages

// EmptyResult is the result of ping (and of every request whose result
// carries nothing, such as resources/subscribe and logging/setLevel).
type EmptyResult struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*EmptyResult) fromClient() {}
func (*EmptyResult) fromServer() {}

// PingParams are the optional params of ping, which either side may send.
type PingParams struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*PingParams) fromClient() {}
func (*PingParams) fromServer() {}
