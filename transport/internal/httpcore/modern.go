package httpcore

import (
	"bytes"
	"unsafe"

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

// Set reports whether the frame is a 2026-07-28 request (every one
// carries its version).
func (m Modern) Set() bool { return m.Version != "" }

var modernMarker = []byte(`"` + messages.MetaProtocolVersion + `"`)

// modernRequest reads the mirrored fields of a 2026-07-28 request: the
// version is the one the session spliced into the frame's _meta, or, when
// version is "", the one params carry in their own _meta (a request the
// session built whole, as the handshake's are); ok is false for a request
// of another era. params must not change while the result is in use: the
// name may alias them (transport.Message.Params).
func modernRequest(method string, params []byte, version string) (Modern, bool) {
	if version == "" && !bytes.Contains(params, modernMarker) {
		return Modern{}, false
	}
	target := messages.NoTarget
	if spec, ok := messages.LookupMethod(method); ok {
		target = spec.Target
	}
	if version != "" && target == messages.NoTarget {
		return Modern{Version: version, Method: method}, true // nothing to scan
	}
	f, ok := scanModern(params, target)
	if !ok {
		f, ok = decodeModern(params)
	}
	if version != "" {
		f.version, ok = version, true
	}
	if !ok || f.version == "" {
		return Modern{}, false
	}
	mod := Modern{Version: f.version, Method: method}
	switch target {
	case messages.TargetTool, messages.TargetPrompt:
		mod.Name = EncodeHeaderValue(f.name)
	case messages.TargetResource:
		mod.Name = EncodeHeaderValue(f.uri)
	}
	return mod, true
}

// modernFields are the members of a 2026-07-28 request's params that its
// headers mirror.
type modernFields struct{ version, name, uri string }

// scanModern reads the mirrored members without decoding: every request
// of that era pays for this, and a decode cost about 3.5 allocations per
// request (sonic's input copy and decoder, the strings). A known version
// is the package's constant and the name aliases params, so a plain
// request allocates nothing. It reports false for what it cannot read
// exactly (an escape in a member it needs), and the caller decodes.
func scanModern(params []byte, target messages.TargetKind) (modernFields, bool) {
	var f modernFields
	fine := true
	scanned := eachMember(params, func(name, value []byte) bool {
		switch {
		case string(name) == "name" && (target == messages.TargetTool || target == messages.TargetPrompt):
			f.name, fine = aliasString(value)
		case string(name) == "uri" && target == messages.TargetResource:
			f.uri, fine = aliasString(value)
		case string(name) == "_meta":
			fine = eachMember(value, func(name, value []byte) bool {
				if string(name) == messages.MetaProtocolVersion {
					f.version, fine = versionString(value)
				}
				return fine
			}) && fine
		}
		return fine
	})
	return f, scanned && fine
}

// aliasString returns a plain JSON string's contents as a string sharing
// v's bytes (see modernRequest), or false when it holds an escape.
func aliasString(v []byte) (string, bool) {
	s, ok := plainString(v)
	if !ok || len(s) == 0 {
		return "", ok
	}
	return unsafe.String(&s[0], len(s)), true
}

// versionString returns a version the engine knows as its constant.
func versionString(v []byte) (string, bool) {
	s, ok := plainString(v)
	if !ok {
		return "", false
	}
	for _, known := range messages.KnownVersions {
		if string(s) == known {
			return known, true
		}
	}
	return string(s), true
}

// decodeModern is scanModern by a full decode, for params it cannot scan.
func decodeModern(params []byte) (modernFields, bool) {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if messages.Unmarshal(params, &p) != nil {
		return modernFields{}, false
	}
	return modernFields{version: p.Meta.Version, name: p.Name, uri: p.URI}, true
}

// EncodeHeaderValue is messages.EncodeHeaderValue, the one encoding of a
// value the 2026-07-28 transport carries in a header (Mcp-Name here,
// Mcp-Param-* for tool arguments): plain when visible ASCII with inner
// spaces, else Base64 between the =?base64? and ?= markers.
func EncodeHeaderValue(s string) string { return messages.EncodeHeaderValue(s) }
