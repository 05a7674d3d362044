package messages

// CancelledParams are the params of notifications/cancelled, which either
// side sends for a request it issued and no longer wants answered.
type CancelledParams struct {
	RequestID ID             `json:"requestId"`
	Reason    string         `json:"reason,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

func (*CancelledParams) fromClient() {}
func (*CancelledParams) fromServer() {}
