package messages

// Root is a directory or file the client exposes to the server.
type Root struct {
	URI  string         `json:"uri"` // file:// in current versions
	Name string         `json:"name,omitempty"`
	Meta map[string]any `json:"_meta,omitempty"` // 2025-06-18+
}

// ListRootsParams are the (optional) params of roots/list.
type ListRootsParams struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*ListRootsParams) fromServer() {}

// ListRootsResult is the client's answer to roots/list. A nil Roots is
// sent as [] (the outgoing codec never emits null for slices).
type ListRootsResult struct {
	Roots []Root         `json:"roots"`
	Meta  map[string]any `json:"_meta,omitempty"`
}

func (*ListRootsResult) fromClient() {}

// RootsListChangedParams are the (optional) params of
// notifications/roots/list_changed.
type RootsListChangedParams struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*RootsListChangedParams) fromClient() {}
