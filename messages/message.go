package messages

// Kind tells the three JSON-RPC message shapes apart.
type Kind uint8

const (
	// KindRequest has a method and an id and expects a response.
	KindRequest Kind = iota + 1
	// KindNotification has a method and no id.
	KindNotification
	// KindResponse has an id and exactly one of result or error.
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one received JSON-RPC message with only its envelope decoded.
// Params, Result and Error.Data stay raw: whoever needs them decodes them
// (usually the caller's goroutine, never the session actor).
type Message struct {
	Kind   Kind
	ID     ID // valid for requests and responses (null on some error responses)
	Method string
	Params RawMessage // nil when absent
	Result RawMessage // non-nil on a success response
	Error  *WireError // non-nil on an error response
}
