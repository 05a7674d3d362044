package mcpserver

import (
	"bytes"
	"slices"

	"github.com/bytedance/sonic"

	"github.com/mcpengine/mcpengine/messages"
)

// The stateless era (2026-07-28): a request whose params._meta carries
// io.modelcontextprotocol/protocolVersion is served on its own, without
// initialize and without a session, in the version it names.

// modernMarker finds modern requests without decoding the others.
var modernMarker = []byte(`"` + messages.MetaProtocolVersion + `"`)

// strictCodec validates strings and copies the input: params are a view
// of the received frame (see demoserver/jsonutil.go on sonic and views).
var strictCodec = sonic.Config{ValidateString: true}.Froze()

// ModernMeta is the per-request context a modern request carries.
type ModernMeta struct {
	Version      string                       `json:"io.modelcontextprotocol/protocolVersion"`
	Capabilities *messages.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo   *messages.Implementation     `json:"io.modelcontextprotocol/clientInfo"`
}

// ModernRequest reads the per-request context of a request's params. It
// returns nil for a request of the handshake era, and refuses a modern
// request with -32022 (and the versions in accepted) when it names a
// version not accepted, or with -32602 when its capabilities are missing.
// A server that accepts no modern version takes every request for one of
// the handshake era, as a server of that era would.
func ModernRequest(params messages.RawMessage, accepted []string) (*ModernMeta, *messages.WireError) {
	if !slices.ContainsFunc(accepted, messages.IsModernVersion) || !bytes.Contains(params, modernMarker) {
		return nil, nil
	}
	var p struct {
		Meta *ModernMeta `json:"_meta"`
	}
	if strictCodec.Unmarshal(params, &p) != nil || p.Meta == nil || p.Meta.Version == "" {
		return nil, nil
	}
	if !messages.IsModernVersion(p.Meta.Version) || !slices.Contains(accepted, p.Meta.Version) {
		return p.Meta, UnsupportedVersion(p.Meta.Version, accepted)
	}
	if p.Meta.Capabilities == nil {
		return p.Meta, &messages.WireError{Code: messages.CodeInvalidParams, Message: "_meta." + messages.MetaClientCapabilities + " is required"}
	}
	return p.Meta, nil
}

// UnsupportedVersion is the -32022 answer listing the versions a server
// speaks.
func UnsupportedVersion(requested string, supported []string) *messages.WireError {
	data, _ := messages.Marshal(&messages.UnsupportedVersionData{Supported: supported, Requested: requested})
	return &messages.WireError{Code: messages.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
}

// RemovedInModern reports the methods of the handshake era that 2026-07-28
// does not have (the method table's); methods the table does not know
// (extensions) are not refused.
func RemovedInModern(method string) bool {
	spec, ok := messages.LookupMethod(method)
	return ok && !spec.InVersion(messages.Version20260728)
}

var (
	resultTypeComplete = []byte(`"resultType":"complete",`)
	// The lists and resources/read are CacheableResults in 2026-07-28:
	// ttlMs 0 (stale at once: nothing here knows how long a list holds)
	// and public (the same for every client).
	cacheableComplete = []byte(`"resultType":"complete","ttlMs":0,"cacheScope":"public",`)
)

// WithResultType adds, as the first members of the result object that
// starts at buf[start], resultType "complete" (which the 2026-07-28 era
// requires of every result) and for the cacheable results their cache
// hints. A result that starts with resultType is left alone.
func WithResultType(buf []byte, start int, method string) []byte {
	if start >= len(buf) || buf[start] != '{' || bytes.HasPrefix(buf[start+1:], []byte(`"resultType"`)) {
		return buf
	}
	ins := resultTypeComplete
	switch method {
	case messages.MethodToolsList, messages.MethodPromptsList, messages.MethodResourcesList,
		messages.MethodResourcesTemplatesList, messages.MethodResourcesRead:
		ins = cacheableComplete
	}
	if start+1 < len(buf) && buf[start+1] == '}' {
		ins = ins[:len(ins)-1]
	}
	return slices.Insert(buf, start+1, ins...)
}
