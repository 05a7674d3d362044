package demoserver

import (
	"slices"

	"github.com/mcpengine/mcpengine/messages"
)

// negotiate picks the version to answer: the requested one if accepted,
// else the newest accepted one (ISO dates compare as strings).
func (o *Options) negotiate(requested string) string {
	if o.AnswerVersion != "" {
		return o.AnswerVersion
	}
	if slices.Contains(o.Versions, requested) {
		return requested
	}
	return slices.Max(o.Versions)
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
	version := o.negotiate(p.ProtocolVersion)
	res := messages.InitializeResult{
		ProtocolVersion: version,
		Capabilities: messages.ServerCapabilities{
			Tools:       &messages.ToolsCapability{ListChanged: true},
			Resources:   &messages.ResourcesCapability{Subscribe: true, ListChanged: true},
			Prompts:     &messages.PromptsCapability{ListChanged: true},
			Logging:     &messages.LoggingCapability{},
			Completions: &messages.CompletionsCapability{},
		},
		ServerInfo:   messages.Implementation{Name: o.Name, Version: o.Version},
		Instructions: o.Instructions,
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
