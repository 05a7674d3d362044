package messages

// PaginatedParams are the params of every */list request. An empty Cursor
// asks for the first page.
type PaginatedParams struct {
	Cursor string         `json:"cursor,omitempty"`
	Meta   map[string]any `json:"_meta,omitempty"`
}

func (*PaginatedParams) fromClient() {}
