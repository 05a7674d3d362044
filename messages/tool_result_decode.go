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

// decodeCallToolResultInPlace fills a zero out from b and reports whether
// it could; false leaves out zero and means "ask sonic". Strings and raw
// members alias b, which the caller owns (UnmarshalOwned's contract).
// content is parsed as it is validated, in one pass; other members are
// validated and skipped (resultType among them, as sonic skips members it
// has no field for).
func decodeCallToolResultInPlace(b []byte, out *CallToolResult) bool {
	b = trimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var r CallToolResult
	var seenContent, seenStructured, seenIsError, seenMeta bool
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		*out = r
		return i+1 == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped, ok := scanString(b, i)
		if !ok || escaped {
			return false
		}
		name := b[i+1 : end-1]
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return false
		}
		start := skipSpace(b, i+1)
		if string(name) == "content" {
			if seenContent {
				return false
			}
			seenContent = true
			if r.Content, i, ok = decodeTextBlocks(b, start); !ok {
				return false
			}
		} else {
			if i, ok = skipValue(b, start); !ok {
				return false
			}
			v := b[start:i:i]
			switch string(name) {
			case "structuredContent":
				// Only an object: sonic hands "null" and scalars to
				// RawMessage in ways not worth mirroring here.
				if seenStructured || v[0] != '{' {
					return false
				}
				seenStructured, r.StructuredContent = true, v
			case "isError":
				if seenIsError || (string(v) != "true" && string(v) != "false") {
					return false
				}
				seenIsError, r.IsError = true, string(v) == "true"
			case "_meta":
				if seenMeta || v[0] != '{' {
					return false
				}
				seenMeta, r.Meta = true, Meta(v)
			}
		}
		var done bool
		if i, done, ok = afterElement(b, i, '}'); !ok {
			return false
		}
		if done {
			if i != len(b) {
				return false
			}
			*out = r
			return true
		}
	}
}

// decodeTextBlocks parses the value at b[i]: null, or an array whose
// elements are all {"type":"text","text":"..."} (in either order, nothing
// else), the content of nearly every tool result. It returns the index
// past the value; any other value refuses it.
func decodeTextBlocks(b []byte, i int) ([]ContentBlock, int, bool) {
	if end, ok := scanLiteral(b, i, "null"); ok {
		return nil, end, true
	}
	if i >= len(b) || b[i] != '[' {
		return nil, 0, false
	}
	blocks := []ContentBlock{}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return blocks, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '{' {
			return nil, 0, false
		}
		end, block, ok := decodeTextBlock(b, i)
		if !ok {
			return nil, 0, false
		}
		blocks = append(blocks, block)
		var done bool
		if i, done, ok = afterElement(b, end, ']'); !ok {
			return nil, 0, false
		}
		if done {
			return blocks, i, true
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
