package gateway

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// The aggregated endpoint in the stateless era (2026-07-28): a POST
// holding one request whose params carry the modern _meta, and no
// Mcp-Session-Id, is served on its own, in a session that lives only as
// long as the request. server/discover is answered by the gateway; the
// other requests are routed as in the handshake era. Each upstream keeps
// its own era: the client's era ends at the gateway.
//
// Notifications come on subscriptions/listen (front_listen.go); the
// servers' requests to the client as input_required results
// (front_input.go).

// frontVersions are the versions the aggregated endpoint speaks.
var frontVersions = messages.KnownVersions

// modernMethods are the methods the aggregated endpoint serves in the
// stateless era; any other is refused with 404 and -32601.
var modernMethods = map[string]bool{
	messages.MethodServerDiscover: true, messages.MethodSubscriptionsListen: true,
	messages.MethodToolsList: true, messages.MethodToolsCall: true,
	messages.MethodPromptsList: true, messages.MethodPromptsGet: true,
	messages.MethodResourcesList: true, messages.MethodResourcesTemplatesList: true, messages.MethodResourcesRead: true,
	messages.MethodCompletionComplete: true,
}

// postModern serves one modern request. Its refusals carry its id: -32602
// without the modern _meta (before the headers are compared, since they
// have nothing to match), -32020 for headers that do not mirror the body,
// -32022 for a version the gateway does not speak, and 404 with -32601
// for a method the stateless era does not have.
func (g *Gateway) postModern(w http.ResponseWriter, r *http.Request, who *principal, m *messages.Message) {
	meta, werr := mcpserver.RequireModernRequest(m.Params, frontVersions)
	if meta == nil {
		mcpserver.WriteModernError(w, m.ID, werr)
		return
	}
	if werr := mcpserver.CheckModernHeaders(r, m); werr != nil {
		mcpserver.WriteModernError(w, m.ID, werr)
		return
	}
	if werr != nil {
		mcpserver.WriteModernError(w, m.ID, werr)
		return
	}
	switch {
	case !modernMethods[m.Method]:
		mcpserver.WriteModernError(w, m.ID, mcpserver.ModernMethodNotFound(m.Method))
		return
	case m.Method == messages.MethodServerDiscover:
		writeJSONAnswer(w, g.discover(who, m.ID))
		return
	}
	params, err := withoutModernMeta(m.Params)
	if err != nil {
		writeJSONAnswer(w, messages.AppendError(nil, m.ID, invalidParams(err.Error())))
		return
	}
	req := *m
	req.Params = params
	fs := newFrontSession(g, who, meta.Version, *meta.Capabilities)
	fs.modern = true
	fs.initialized.Store(true)
	fs.lease = mcpserver.NewLease(0, nil) // ends with its request
	if g.wantsStream(fs, []*messages.Message{&req}) {
		defer fs.end()
		g.answerMany(w, r, fs, []*messages.Message{&req}, true)
		return
	}
	g.serveWithInput(w, r, fs, &req)
}

// discover answers server/discover.
func (g *Gateway) discover(who *principal, id messages.ID) []byte {
	res := messages.DiscoverResult{
		ResultType:        messages.ResultTypeComplete,
		SupportedVersions: frontVersions,
		Capabilities:      frontCapabilities(true),
		Instructions:      g.instructions(who),
		// Private: what a client may see depends on its token.
		CacheScope: messages.CacheScopePrivate,
		Meta:       &messages.ResultMeta{ServerInfo: &messages.Implementation{Name: serverInfoName, Version: g.version}},
	}
	raw, err := messages.Marshal(&res)
	if err != nil {
		return messages.AppendError(nil, id, &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()})
	}
	return messages.AppendResult(nil, id, raw)
}

// frontCapabilities are what the aggregated endpoint declares, whatever
// its servers do (a server that lacks something contributes nothing to
// it). The stateless era has no logging/setLevel: log messages are not
// passed on to its clients.
func frontCapabilities(modern bool) messages.ServerCapabilities {
	if modern {
		return messages.ServerCapabilities{
			Tools:       &messages.ToolsCapability{ListChanged: true},
			Resources:   &messages.ResourcesCapability{Subscribe: true, ListChanged: true},
			Prompts:     &messages.PromptsCapability{ListChanged: true},
			Completions: &messages.CompletionsCapability{},
		}
	}
	return messages.ServerCapabilities{
		Tools:       &messages.ToolsCapability{ListChanged: true},
		Resources:   &messages.ResourcesCapability{Subscribe: true, ListChanged: true},
		Prompts:     &messages.PromptsCapability{ListChanged: true},
		Logging:     &messages.LoggingCapability{},
		Completions: &messages.CompletionsCapability{},
	}
}

// withoutModernMeta removes the protocol's own members from params._meta
// (the version, the client's capabilities and identity): they describe
// the client's request to the gateway, and each upstream session adds its
// own. The rest of _meta (a progress token, trace context) is kept.
func withoutModernMeta(params messages.RawMessage) (messages.RawMessage, error) {
	var p map[string]messages.RawMessage
	if err := messages.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	var meta map[string]messages.RawMessage
	if err := messages.Unmarshal(p["_meta"], &meta); err != nil {
		return nil, err
	}
	for k := range meta {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			delete(meta, k)
		}
	}
	if len(meta) == 0 {
		delete(p, "_meta")
	} else {
		raw, err := messages.Marshal(meta)
		if err != nil {
			return nil, err
		}
		p["_meta"] = raw
	}
	return messages.Marshal(p)
}

// modernResult gives a result the resultType the stateless era requires
// of every result, unless it has one (from a server of that era).
func modernResult(method string, res messages.RawMessage) messages.RawMessage {
	var probe struct {
		ResultType *string `json:"resultType"`
	}
	if messages.Unmarshal(res, &probe) == nil && probe.ResultType != nil {
		return res
	}
	return mcpserver.WithResultType(slices.Clone(res), 0, method)
}
