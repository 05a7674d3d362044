package httpserve

import (
	"encoding/base64"
	"strings"
)

// DecodeHeaderValue reads a value the 2026-07-28 Streamable HTTP transport
// mirrored into a header (Mcp-Name, Mcp-Param-*): as it is, or, between
// the =?base64? and ?= markers, Base64 of its UTF-8. ok is false for a
// malformed encoding.
func DecodeHeaderValue(v string) (string, bool) {
	const open, close = "=?base64?", "?="
	if len(v) < len(open)+len(close) || !strings.HasPrefix(v, open) || !strings.HasSuffix(v, close) {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len(open) : len(v)-len(close)])
	if err != nil {
		return "", false
	}
	return string(b), true
}
