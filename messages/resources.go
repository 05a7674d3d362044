package messages

// Resource is a listed resource.
type Resource struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"` // 2025-06-18+
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"` // bytes, 2025-03-26+
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"` // 2025-11-25
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams = PaginatedParams

// ListResourcesResult is one page of resources.
type ListResourcesResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
}

func (*ListResourcesResult) fromServer() {}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams = PaginatedParams

// ListResourceTemplatesResult is one page of resource templates.
type ListResourceTemplatesResult struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string             `json:"nextCursor,omitempty"`
	Meta              Meta               `json:"_meta,omitempty"`
}

func (*ListResourceTemplatesResult) fromServer() {}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	URI  string         `json:"uri"`
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*ReadResourceParams) fromClient() {}

// ReadResourceResult holds the contents read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	Meta     Meta               `json:"_meta,omitempty"`
}

func (*ReadResourceResult) fromServer() {}

// SubscribeParams are the params of resources/subscribe.
type SubscribeParams struct {
	URI  string         `json:"uri"`
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*SubscribeParams) fromClient() {}

// UnsubscribeParams are the params of resources/unsubscribe.
type UnsubscribeParams struct {
	URI  string         `json:"uri"`
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*UnsubscribeParams) fromClient() {}

// ResourceUpdatedParams are the params of notifications/resources/updated.
type ResourceUpdatedParams struct {
	URI  string         `json:"uri"`
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*ResourceUpdatedParams) fromServer() {}
