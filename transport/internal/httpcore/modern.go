package httpcore

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// Request headers of the 2026-07-28 Streamable HTTP transport, which
// mirror the body so that intermediaries can route without parsing it.
const (
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)

// Modern is what a 2026-07-28 request's headers mirror from its body.
type Modern struct {
	// Version is params._meta's protocol version (the MCP-Protocol-Version
	// header); Method the request's method (Mcp-Method); Name params.name
	// or params.uri for the methods that name a target (Mcp-Name), already
	// encoded for a header.
	Version, Method, Name string
}

var modernMarker = []byte(`"` + messages.MetaProtocolVersion + `"`)

// modernRequest reads the mirrored fields of a request whose params carry
// the stateless era's _meta; ok is false for any other request. Only such
// requests pay for the decode.
func modernRequest(m *messages.Message) (Modern, bool) {
	if !bytes.Contains(m.Params, modernMarker) {
		return Modern{}, false
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if messages.Unmarshal(m.Params, &p) != nil || p.Meta.Version == "" {
		return Modern{}, false
	}
	mod := Modern{Version: p.Meta.Version, Method: m.Method}
	if spec, ok := messages.LookupMethod(m.Method); ok {
		switch spec.Target {
		case messages.TargetTool, messages.TargetPrompt:
			mod.Name = EncodeHeaderValue(p.Name)
		case messages.TargetResource:
			mod.Name = EncodeHeaderValue(p.URI)
		}
	}
	return mod, true
}

const (
	sentinelOpen  = "=?base64?"
	sentinelClose = "?="
)

// EncodeHeaderValue returns s as the 2026-07-28 transport carries a value
// in a header (httpserve.DecodeHeaderValue is the server's side): as it is when it is plain (visible ASCII and inner spaces
// or tabs), else Base64 of its UTF-8 between the =?base64? and ?= markers
// (also when the plain value looks like such an encoding).
func EncodeHeaderValue(s string) string {
	if plainHeaderValue(s) && !(strings.HasPrefix(s, sentinelOpen) && strings.HasSuffix(s, sentinelClose)) {
		return s
	}
	return sentinelOpen + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelClose
}

func plainHeaderValue(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x21 || c > 0x7E) && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
