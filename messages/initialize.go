package messages

// Implementation names a client or server. Title (2025-06-18), Description,
// WebsiteURL and Icons (2025-11-25) are omitted when empty so that older
// peers see only name and version.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is a displayable image for an implementation, tool, resource or
// prompt (2025-11-25).
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// InitializeParams open the handshake.
type InitializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
	Meta            map[string]any     `json:"_meta,omitempty"`
}

func (*InitializeParams) fromClient() {}

// InitializeResult is the server's answer: the version it chose, what it
// can do and who it is.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            map[string]any     `json:"_meta,omitempty"`
}

func (*InitializeResult) fromServer() {}

// InitializedParams are the (usually absent) params of
// notifications/initialized.
type InitializedParams struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*InitializedParams) fromClient() {}
