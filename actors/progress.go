package actors

import (
	"bytes"
	"strconv"

	"github.com/mcpengine/mcpengine/messages"
)

// withProgressToken puts the request's id into params._meta.progressToken.
// The engine generates the token, so it is the request id: unique among
// the session's active requests by construction. The common case (params
// without _meta) is a byte splice; params that already carry _meta are
// decoded and merged.
func withProgressToken(params messages.RawMessage, id int64) messages.RawMessage {
	tok := strconv.AppendInt(nil, id, 10)
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || string(trimmed) == "null" || isEmptyObject(trimmed) {
		out := append([]byte(`{"_meta":{"progressToken":`), tok...)
		return append(out, "}}"...)
	}
	if trimmed[0] != '{' {
		return params // not an object: nowhere to put a token
	}
	if !bytes.Contains(trimmed, []byte(`"_meta"`)) {
		out := make([]byte, 0, len(trimmed)+32)
		out = append(out, `{"_meta":{"progressToken":`...)
		out = append(out, tok...)
		out = append(out, "},"...)
		return append(out, trimmed[1:]...)
	}
	var obj map[string]messages.RawMessage
	if err := messages.Unmarshal(trimmed, &obj); err != nil {
		return params
	}
	var meta map[string]messages.RawMessage
	if m, ok := obj["_meta"]; ok {
		_ = messages.Unmarshal(m, &meta)
	}
	if meta == nil {
		meta = map[string]messages.RawMessage{}
	}
	meta[messages.MetaProgressToken] = tok
	rawMeta, err := messages.Marshal(meta)
	if err != nil {
		return params
	}
	obj["_meta"] = rawMeta
	out, err := messages.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

func isEmptyObject(b []byte) bool {
	return len(b) >= 2 && b[0] == '{' && string(bytes.TrimSpace(b[1:])) == "}"
}
