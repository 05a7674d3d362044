package messages

// ProgressToken is a string or integer chosen by a request's sender and
// echoed in notifications/progress; it has exactly the shape of a request
// id, so it is one.
type ProgressToken = ID

// MetaProgressToken is the _meta key under which a request asks for
// progress notifications.
const MetaProgressToken = "progressToken"

// ProgressParams are the params of notifications/progress.
type ProgressParams struct {
	ProgressToken ProgressToken  `json:"progressToken"`
	Progress      float64        `json:"progress"`
	Total         *float64       `json:"total,omitempty"`
	Message       string         `json:"message,omitempty"` // 2025-03-26+
	Meta          map[string]any `json:"_meta,omitempty"`
}

func (*ProgressParams) fromClient() {}
func (*ProgressParams) fromServer() {}

// WithProgressToken returns meta (allocated if nil) with the progress
// token set, for a request's Meta field.
func WithProgressToken(meta map[string]any, tok ProgressToken) map[string]any {
	if meta == nil {
		meta = make(map[string]any, 1)
	}
	meta[MetaProgressToken] = tok
	return meta
}
