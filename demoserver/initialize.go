package demoserver

import (
	"slices"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// negotiate picks the version to answer: the requested one if accepted,
// else the newest accepted one (ISO dates compare as strings).
func (o *Options) negotiate(requested string) string {
	if o.AnswerVersion != "" {
		return o.AnswerVersion
	}
	return mcpserver.NegotiateVersion(requested, o.legacyVersions())
}

func handleInitialize(r *request, buf []byte) ([]byte, *messages.WireError) {
	s := r.s
	if s.initialized.Load() {
		return buf, &messages.WireError{Code: messages.CodeInvalidRequest, Message: "already initialized"}
	}
	var p messages.InitializeParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	if p.ProtocolVersion == "" {
		return buf, invalidParams("protocolVersion is required")
	}
	o := &s.srv.opts
	if o.AnswerVersion == "" && (!o.speaksLegacy() || o.RefuseInitialize) && !slices.Contains(o.legacyVersions(), p.ProtocolVersion) {
		// A server of the stateless era names the versions it speaks.
		return buf, s.srv.unsupportedVersion(p.ProtocolVersion)
	}
	version := o.negotiate(p.ProtocolVersion)
	res := messages.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    serverCapabilities(false),
		ServerInfo:      messages.Implementation{Name: o.Name, Version: o.Version},
		Instructions:    o.Instructions,
	}
	buf, werr := appendMarshal(buf, &res)
	if werr != nil {
		return buf, werr
	}
	s.mu.Lock()
	s.version = version
	s.clientCaps = p.Capabilities
	s.mu.Unlock()
	s.initialized.Store(true)
	o.Logger.Debug("demoserver: initialized", "version", version, "client", p.ClientInfo.Name)
	return buf, nil
}
