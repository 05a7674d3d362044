package messages

import "unsafe"

// A tools/call answer is the hottest thing a client decodes, and nearly
// every one has the same shape: text blocks, perhaps structured content,
// isError, and in 2026-07-28 a resultType and the server's identity in
// _meta. decodeCallToolResultInPlace decodes that shape with the frame
// scanner instead of sonic: sonic's fixed cost per decode (a UTF-8 pass
// over the input, then the parse, then a second walk and a copy for the
// _meta object it hands to Meta.UnmarshalJSON) was most of what a
// 2026-07-28 answer cost over a handshake-era one. Anything else goes to
// sonic, which stays the reference: the fast path gives exactly what sonic
// gives or is not taken.

// callToolResultNames are the members read; others (resultType among
// them) are validated and skipped, as sonic skips members it has no field
// for.
var callToolResultNames = [...]string{"content", "structuredContent", "isError", "_meta"}

const (
	spanContent = iota
	spanStructuredContent
	spanIsError
	spanResultMeta
)

// decodeCallToolResultInPlace fills a zero out from b and reports whether
// it could; false leaves out zero and means "ask sonic". Strings and raw
// members alias b, which the caller owns (UnmarshalOwned's contract).
func decodeCallToolResultInPlace(b []byte, out *CallToolResult) bool {
	b = trimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var s [len(callToolResultNames)]span
	if end, ok := scanMembers(b, 0, callToolResultNames[:], s[:]); !ok || end != len(b) {
		return false
	}
	var r CallToolResult
	if sp := s[spanContent]; sp.present() {
		content, ok := decodeTextBlocks(b[sp.start:sp.end])
		if !ok {
			return false
		}
		r.Content = content
	}
	if sp := s[spanStructuredContent]; sp.present() {
		// Only an object: sonic hands "null" and scalars to RawMessage
		// in ways not worth mirroring here.
		if b[sp.start] != '{' {
			return false
		}
		r.StructuredContent = sp.raw(b)
	}
	if sp := s[spanIsError]; sp.present() {
		switch string(b[sp.start:sp.end]) {
		case "true":
			r.IsError = true
		case "false":
		default:
			return false
		}
	}
	if sp := s[spanResultMeta]; sp.present() {
		if b[sp.start] != '{' {
			return false
		}
		r.Meta = Meta(sp.raw(b))
	}
	*out = r
	return true
}

// decodeTextBlocks decodes a scanned array whose elements are all
// {"type":"text","text":"..."} (in either order, nothing else): the
// content of nearly every tool result. Any other element refuses the
// whole array.
func decodeTextBlocks(b []byte) ([]ContentBlock, bool) {
	if string(b) == "null" {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	blocks := []ContentBlock{}
	i := skipSpace(b, 1)
	if b[i] == ']' {
		return blocks, true
	}
	for {
		if b[i] != '{' {
			return nil, false
		}
		end, block, ok := decodeTextBlock(b, i)
		if !ok {
			return nil, false
		}
		blocks = append(blocks, block)
		i = skipSpace(b, end)
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return blocks, true
		default:
			return nil, false
		}
	}
}

// decodeTextBlock decodes the text block object at b[i] == '{' and
// returns the index past it. Its members must be exactly type ("text")
// and text, both strings, each once; anything else refuses it.
func decodeTextBlock(b []byte, i int) (int, ContentBlock, bool) {
	var typ, text []byte
	var textEscaped bool
	i = skipSpace(b, i+1)
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, ContentBlock{}, false
		}
		end, escaped, ok := scanString(b, i)
		if !ok || escaped {
			return 0, ContentBlock{}, false
		}
		name := b[i+1 : end-1]
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return 0, ContentBlock{}, false
		}
		if i = skipSpace(b, i+1); i >= len(b) || b[i] != '"' {
			return 0, ContentBlock{}, false
		}
		start := i
		if i, escaped, ok = scanString(b, i); !ok {
			return 0, ContentBlock{}, false
		}
		switch {
		case string(name) == "type" && typ == nil:
			typ = b[start:i]
		case string(name) == "text" && text == nil:
			text, textEscaped = b[start:i], escaped
		default:
			return 0, ContentBlock{}, false
		}
		if i = skipSpace(b, i); i >= len(b) {
			return 0, ContentBlock{}, false
		}
		if b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if b[i] != '}' || string(typ) != `"text"` || text == nil {
			return 0, ContentBlock{}, false
		}
		value, ok := stringValue(text, textEscaped)
		if !ok {
			return 0, ContentBlock{}, false
		}
		return i + 1, ContentBlock{Type: ContentTypeText, Text: value}, true
	}
}

// stringValue is a scanned JSON string's value. Without escapes it
// aliases raw (no copy); with them it is decoded into a new string.
func stringValue(raw []byte, escaped bool) (string, bool) {
	if escaped {
		return decodeString(raw, false)
	}
	if len(raw) == 2 {
		return "", true
	}
	return unsafe.String(&raw[1], len(raw)-2), true
}

// isZero reports a CallToolResult nothing was decoded into yet: decoding
// into a used one merges (sonic keeps what the input does not name), which
// only sonic does.
func (r *CallToolResult) isZero() bool {
	return r.Content == nil && r.StructuredContent == nil && !r.IsError && r.Meta == nil
}
