package messages

// ResourceContents is the schema's TextResourceContents | BlobResourceContents
// in one struct.
//
// Representation: the contents are a blob when Blob is non-empty and text
// otherwise. MarshalJSON always emits "text" for text contents, so an empty
// text round-trips as "text":"" (omitempty would have dropped the required
// member). The one lossy case is a peer's empty blob ("blob":""): it
// decodes like an empty text and would be re-sent as "text":"". Both carry
// no data, so nothing is lost but the member's name; use IsBlob to tell
// non-empty blobs apart.
type ResourceContents struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Text     string         `json:"text,omitempty"`
	Blob     string         `json:"blob,omitempty"` // base64
	Meta     map[string]any `json:"_meta,omitempty"`
}

// IsBlob reports whether the contents are binary (base64 in Blob).
func (r ResourceContents) IsBlob() bool { return r.Blob != "" }

type textResourceContents struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Text     string         `json:"text"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

type blobResourceContents struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Blob     string         `json:"blob"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON emits exactly one of text and blob.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	if r.Blob != "" {
		return Marshal(blobResourceContents{r.URI, r.MimeType, r.Blob, r.Meta})
	}
	return Marshal(textResourceContents{r.URI, r.MimeType, r.Text, r.Meta})
}
