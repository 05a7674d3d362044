package demoserver

import (
	"slices"

	"github.com/mcpengine/mcpengine/internal/mcpserver"

	"github.com/mcpengine/mcpengine/messages"
)

// The stateless era (2026-07-28) beside the handshake era. Which eras the
// server speaks follows Options.Versions: legacy versions only (the
// default), modern versions only, or both. A request whose params._meta
// carries io.modelcontextprotocol/protocolVersion is a modern request: it
// is served on its own, without initialize, in the version it names.

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
func (s *Server) modernRequest(params messages.RawMessage) (bool, *messages.WireError) {
	meta, werr := mcpserver.ModernRequest(params, s.opts.Versions)
	return meta != nil, werr
}

// unsupportedVersion is the -32022 answer listing the server's versions.
func (s *Server) unsupportedVersion(requested string) *messages.WireError {
	return mcpserver.UnsupportedVersion(requested, s.opts.Versions)
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
