package messages

// Content block types.
const (
	ContentTypeText         = "text"
	ContentTypeImage        = "image"
	ContentTypeAudio        = "audio"         // 2025-03-26+
	ContentTypeResource     = "resource"      // embedded resource
	ContentTypeResourceLink = "resource_link" // 2025-06-18+
	ContentTypeToolUse      = "tool_use"      // sampling only, 2025-11-25
	ContentTypeToolResult   = "tool_result"   // sampling only, 2025-11-25
)

// Roles of a conversation participant.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ContentBlock is every kind of content in one flat struct, told apart by
// Type. A flat struct decodes without interface dispatch (fast with sonic)
// and lets callers switch on Type. Which fields are meaningful:
//
//	text           Text
//	image, audio   Data (base64), MimeType
//	resource       Resource
//	resource_link  URI, Name, Title, Description, MimeType, Size, Icons
//	tool_use       ID, Name, Input
//	tool_result    ToolUseID, Content, StructuredContent, IsError
//
// Annotations and Meta apply to all. MarshalJSON emits only the fields of
// the block's Type, and always emits the required ones (so an empty text
// is sent as "text":"" rather than dropped).
type ContentBlock struct {
	Type string `json:"type"`

	Text string `json:"text,omitempty"`

	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`

	Resource *ResourceContents `json:"resource,omitempty"`

	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`

	ID    string     `json:"id,omitempty"`
	Input RawMessage `json:"input,omitempty"`

	ToolUseID         string         `json:"toolUseId,omitempty"`
	Content           []ContentBlock `json:"content,omitempty"`
	StructuredContent RawMessage     `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`

	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// Annotations tell the client how to use or display an object.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`     // 0 (least) to 1 (most important)
	LastModified string   `json:"lastModified,omitempty"` // ISO 8601, 2025-06-18+
}

// TextContent returns a text block.
func TextContent(text string) ContentBlock { return ContentBlock{Type: ContentTypeText, Text: text} }

// ImageContent returns an image block; data is base64.
func ImageContent(data, mimeType string) ContentBlock {
	return ContentBlock{Type: ContentTypeImage, Data: data, MimeType: mimeType}
}

// AudioContent returns an audio block; data is base64.
func AudioContent(data, mimeType string) ContentBlock {
	return ContentBlock{Type: ContentTypeAudio, Data: data, MimeType: mimeType}
}

// EmbeddedResource returns a block carrying a resource's contents.
func EmbeddedResource(r ResourceContents) ContentBlock {
	return ContentBlock{Type: ContentTypeResource, Resource: &r}
}

// ResourceLinkContent returns a block pointing at a resource by URI.
func ResourceLinkContent(uri, name string) ContentBlock {
	return ContentBlock{Type: ContentTypeResourceLink, URI: uri, Name: name}
}
