package gateway

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// serverInfoName is the gateway's name in initialize results.
const serverInfoName = "mcpengine-gateway"

// initialize starts a session of the aggregated endpoint. The gateway
// answers it itself: its servers were initialized long before, and it
// declares what it offers whatever they do (a server that lacks something
// contributes nothing to it).
func (g *Gateway) initialize(w http.ResponseWriter, who *principal, m *messages.Message) {
	var p messages.InitializeParams
	if err := messages.Unmarshal(m.Params, &p); err != nil {
		writeJSONAnswer(w, messages.AppendError(nil, m.ID, invalidParams("initialize: "+err.Error())))
		return
	}
	version := mcpserver.NegotiateVersion(p.ProtocolVersion, messages.SupportedVersions)
	fs := g.fronts.create(who, version, p.Capabilities, false)
	if fs == nil {
		httpserve.Error(w, http.StatusServiceUnavailable, messages.CodeInternalError, "the gateway is shutting down")
		return
	}
	defer g.fronts.release(fs)
	raw, err := g.initializeResult(who, version)
	if err != nil {
		g.fronts.end(fs)
		writeJSONAnswer(w, messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}))
		return
	}
	g.log.Debug("gateway: client session started", "session", fs.id, "client", who.name, "protocol", version)
	w.Header().Set(headerSessionID, fs.id)
	writeJSONAnswer(w, messages.AppendResult(nil, m.ID, raw))
}

// initializeResult is the answer to initialize in version.
func (g *Gateway) initializeResult(who *principal, version string) (messages.RawMessage, error) {
	return messages.Marshal(&messages.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    frontCapabilities(false),
		ServerInfo:      messages.Implementation{Name: serverInfoName, Version: g.version},
		Instructions:    g.instructions(who),
	})
}

// instructions tell the client where the names come from, then pass on
// each server's own instructions.
func (g *Gateway) instructions(who *principal) string {
	var b strings.Builder
	b.WriteString("This is an MCP gateway in front of several servers. Tool and prompt names carry their server's prefix:")
	for _, u := range g.order {
		if !who.access[u.name].allows(kindServers, u.name) {
			continue
		}
		if u.prefix == "" {
			fmt.Fprintf(&b, "\n- %s (no prefix)", u.name)
		} else {
			fmt.Fprintf(&b, "\n- %s: %s…", u.name, u.prefix)
		}
		for _, m := range u.pool.members {
			if ins := m.s.Instructions(); ins != "" {
				fmt.Fprintf(&b, "\n  %s", strings.ReplaceAll(ins, "\n", "\n  "))
				break
			}
		}
	}
	return b.String()
}
