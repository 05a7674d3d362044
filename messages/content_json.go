package messages

// The per-type wire shapes used by ContentBlock.MarshalJSON. Required
// members have no omitempty, so a zero value is still sent and the block
// stays valid against the schema.

type textBlock struct {
	Type        string         `json:"type"`
	Text        string         `json:"text"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type mediaBlock struct {
	Type        string         `json:"type"`
	Data        string         `json:"data"`
	MimeType    string         `json:"mimeType"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type resourceBlock struct {
	Type        string            `json:"type"`
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

type resourceLinkBlock struct {
	Type        string         `json:"type"`
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type toolUseBlock struct {
	Type        string         `json:"type"`
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Input       RawMessage     `json:"input"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type toolResultBlock struct {
	Type              string         `json:"type"`
	ToolUseID         string         `json:"toolUseId"`
	Content           []ContentBlock `json:"content"`
	StructuredContent RawMessage     `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
	Annotations       *Annotations   `json:"annotations,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// contentBlockFields has ContentBlock's fields without its methods, for
// blocks of a type this package does not know: they are sent as they are.
type contentBlockFields ContentBlock

var emptyObject = RawMessage("{}")

// MarshalJSON emits the members of the block's Type only, required ones
// always.
func (c ContentBlock) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentTypeText:
		return Marshal(textBlock{c.Type, c.Text, c.Annotations, c.Meta})
	case ContentTypeImage, ContentTypeAudio:
		return Marshal(mediaBlock{c.Type, c.Data, c.MimeType, c.Annotations, c.Meta})
	case ContentTypeResource:
		r := c.Resource
		if r == nil {
			r = &ResourceContents{}
		}
		return Marshal(resourceBlock{c.Type, r, c.Annotations, c.Meta})
	case ContentTypeResourceLink:
		return Marshal(resourceLinkBlock{c.Type, c.URI, c.Name, c.Title, c.Description,
			c.MimeType, c.Size, c.Icons, c.Annotations, c.Meta})
	case ContentTypeToolUse:
		input := c.Input
		if len(input) == 0 {
			input = emptyObject
		}
		return Marshal(toolUseBlock{c.Type, c.ID, c.Name, input, c.Annotations, c.Meta})
	case ContentTypeToolResult:
		content := c.Content
		if content == nil {
			content = []ContentBlock{}
		}
		return Marshal(toolResultBlock{c.Type, c.ToolUseID, content, c.StructuredContent,
			c.IsError, c.Annotations, c.Meta})
	}
	return Marshal(contentBlockFields(c))
}
