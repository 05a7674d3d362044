package messages

import "bytes"

// MetaField is one member of a request's params._meta, its value already
// encoded as JSON.
type MetaField struct {
	Key   string
	Value RawMessage
}

// WithMeta returns params with fields set in its _meta object, creating
// _meta (or params itself, when empty) as needed; fields replace members of
// the same name. The common case, params without _meta, is a byte splice
// that decodes nothing; params that already carry _meta are decoded and
// merged. Params that are not a JSON object are returned unchanged: there
// is nowhere to put the fields.
func WithMeta(params RawMessage, fields ...MetaField) RawMessage {
	if len(fields) == 0 {
		return params
	}
	trimmed := bytes.TrimSpace(params)
	empty := len(trimmed) == 0 || string(trimmed) == "null" || isEmptyObject(trimmed)
	if !empty && trimmed[0] != '{' {
		return params
	}
	if empty || !bytes.Contains(trimmed, metaMember) {
		out := make([]byte, 0, len(trimmed)+16+metaSize(fields))
		out = append(out, `{"_meta":{`...)
		for i, f := range fields {
			if i > 0 {
				out = append(out, ',')
			}
			out = AppendJSONString(out, f.Key)
			out = append(out, ':')
			out = append(out, f.Value...)
		}
		if empty {
			return append(out, "}}"...)
		}
		out = append(out, "},"...)
		return append(out, trimmed[1:]...)
	}
	var obj map[string]RawMessage
	if err := Unmarshal(trimmed, &obj); err != nil {
		return params
	}
	var meta map[string]RawMessage
	if m, ok := obj["_meta"]; ok {
		_ = Unmarshal(m, &meta)
	}
	if meta == nil {
		meta = make(map[string]RawMessage, len(fields))
	}
	for _, f := range fields {
		meta[f.Key] = f.Value
	}
	rawMeta, err := Marshal(meta)
	if err != nil {
		return params
	}
	obj["_meta"] = rawMeta
	out, err := Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

func metaSize(fields []MetaField) int {
	n := 0
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 4
	}
	return n
}

func isEmptyObject(b []byte) bool {
	return len(b) >= 2 && b[0] == '{' && string(bytes.TrimSpace(b[1:])) == "}"
}
