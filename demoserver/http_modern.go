package demoserver

import (
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// Streamable HTTP in the stateless era (2026-07-28): a POST holding one
// request whose params carry the modern _meta is served on its own, in a
// session that lives only as long as the request (no Mcp-Session-Id is
// minted or read). Its headers must mirror its body: MCP-Protocol-Version
// the _meta version, Mcp-Method the method, Mcp-Name the name or URI of
// tools/call, prompts/get and resources/read (Base64-sentinel decoded);
// otherwise 400 with -32020. A version the server does not speak gets 400
// with -32022 and the versions it does.

// Header names of the stateless era's request metadata.
const (
	HeaderMethod = mcpserver.HeaderMethod
	HeaderName   = mcpserver.HeaderName
)

// modernPost returns the request of a POST that is one modern request, or
// nil (a server that speaks no modern version serves every POST the
// legacy way, as a server of the old era does).
func (h *StreamableHandler) modernPost(r *http.Request, msgs []messages.Message) *messages.Message {
	return mcpserver.ModernPost(r, msgs, h.srv.opts.Versions)
}

// postModern serves one modern request. Its refusals carry its id: -32602
// without the modern _meta (before the headers are compared, since they
// have nothing to match), -32020 for headers that do not mirror the body,
// -32022 for a version the server does not speak, and 404 with -32601
// for a method the stateless era does not have here.
func (h *StreamableHandler) postModern(w http.ResponseWriter, r *http.Request, body []byte, msgs []messages.Message, m *messages.Message) {
	meta, werr := mcpserver.RequireModernRequest(m.Params, h.srv.opts.Versions)
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
	if _, known := h.srv.methods[m.Method]; !known || mcpserver.RemovedInModern(m.Method) {
		mcpserver.WriteModernError(w, m.ID, mcpserver.ModernMethodNotFound(m.Method))
		return
	}
	if status := h.faults.failPost(&h.o); status != 0 {
		injectedFailure(w, status)
		return
	}
	s := h.newSession()
	if s == nil {
		httpserve.Error(w, http.StatusServiceUnavailable, messages.CodeInternalError, "server shutting down")
		return
	}
	defer func() {
		h.hub.end(s)
		h.hub.release(s)
	}()
	h.answer(w, r, s, body, inspectPost(msgs), false)
}
