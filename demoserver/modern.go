package demoserver

import (
	"bytes"
	"slices"

	"github.com/mcpengine/mcpengine/messages"
)

// The stateless era (2026-07-28) beside the handshake era. Which eras the
// server speaks follows Options.Versions: legacy versions only (the
// default), modern versions only, or both. A request whose params._meta
// carries io.modelcontextprotocol/protocolVersion is a modern request: it
// is served on its own, without initialize, in the version it names.

// modernMarker finds modern requests without decoding the others.
var modernMarker = []byte(`"` + messages.MetaProtocolVersion + `"`)

// modernMeta is the per-request context a modern request carries.
type modernMeta struct {
	Meta *struct {
		Version      string                       `json:"io.modelcontextprotocol/protocolVersion"`
		Capabilities *messages.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		ClientInfo   *messages.Implementation     `json:"io.modelcontextprotocol/clientInfo"`
	} `json:"_meta"`
}

// speaksModern and speaksLegacy say which eras the server serves.
func (o *Options) speaksModern() bool {
	return slices.ContainsFunc(o.Versions, messages.IsModernVersion)
}
func (o *Options) speaksLegacy() bool {
	return slices.ContainsFunc(o.Versions, func(v string) bool { return !messages.IsModernVersion(v) })
}

// legacyVersions are the accepted versions initialize may negotiate.
func (o *Options) legacyVersions() []string {
	return slices.DeleteFunc(slices.Clone(o.Versions), messages.IsModernVersion)
}

// modernRequest reports whether params carry the modern per-request
// fields, and refuses them when they are malformed (-32602) or name a
// version the server does not speak (-32022, with the versions it does).
// A server that speaks no modern version treats such a request as a
// legacy one, as a server of the old era would.
func (s *Server) modernRequest(params messages.RawMessage) (bool, *messages.WireError) {
	if !s.opts.speaksModern() || !bytes.Contains(params, modernMarker) {
		return false, nil
	}
	var p modernMeta
	if decodeJSON(params, &p) != nil || p.Meta == nil || p.Meta.Version == "" {
		return false, nil
	}
	if !messages.IsModernVersion(p.Meta.Version) || !slices.Contains(s.opts.Versions, p.Meta.Version) {
		return true, s.unsupportedVersion(p.Meta.Version)
	}
	if p.Meta.Capabilities == nil {
		return true, invalidParams("_meta." + messages.MetaClientCapabilities + " is required")
	}
	return true, nil
}

// unsupportedVersion is the -32022 answer listing the server's versions.
func (s *Server) unsupportedVersion(requested string) *messages.WireError {
	data, _ := messages.Marshal(&messages.UnsupportedVersionData{Supported: s.opts.Versions, Requested: requested})
	return &messages.WireError{Code: messages.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
}

// removedInModern lists the methods the stateless era does not have.
func removedInModern(method string) bool {
	switch method {
	case messages.MethodInitialize, messages.MethodPing, messages.MethodResourcesSubscribe,
		messages.MethodResourcesUnsubscribe, messages.MethodLoggingSetLevel:
		return true
	}
	return false
}

// serverCapabilities are what the server declares in either era; the
// stateless era has no resource subscriptions or log level to set.
func serverCapabilities(modern bool) messages.ServerCapabilities {
	caps := messages.ServerCapabilities{
		Tools:       &messages.ToolsCapability{ListChanged: true},
		Resources:   &messages.ResourcesCapability{Subscribe: true, ListChanged: true},
		Prompts:     &messages.PromptsCapability{ListChanged: true},
		Logging:     &messages.LoggingCapability{},
		Completions: &messages.CompletionsCapability{},
	}
	if modern {
		// List changes and resource updates are sent on
		// subscriptions/listen (listen.go).
		caps.Logging = nil
	}
	return caps
}

// handleDiscover answers server/discover (modern requests only: the
// dispatcher refuses it otherwise).
func handleDiscover(r *request, buf []byte) ([]byte, *messages.WireError) {
	o := &r.s.srv.opts
	res := messages.DiscoverResult{
		ResultType:        messages.ResultTypeComplete,
		SupportedVersions: o.Versions,
		Capabilities:      serverCapabilities(true),
		Instructions:      o.Instructions,
		CacheScope:        messages.CacheScopePublic,
		Meta:              &messages.ResultMeta{ServerInfo: &messages.Implementation{Name: o.Name, Version: o.Version}},
	}
	return appendMarshal(buf, &res)
}

var (
	resultTypeComplete = []byte(`"resultType":"complete",`)
	// The lists and resources/read are CacheableResults in 2026-07-28:
	// ttlMs 0 (stale at once: the demo's lists change under the fault and
	// notify tools) and public (the same for every client).
	cacheableComplete = []byte(`"resultType":"complete","ttlMs":0,"cacheScope":"public",`)
)

// withResultType adds, as the first members of the result object that
// starts at buf[start], resultType "complete" (which the 2026-07-28 era
// requires of every result) and for the cacheable results their cache
// hints. A result that already has them (discover's) is left alone.
func withResultType(buf []byte, start int, method string) []byte {
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
