package demoserver

import (
	"bytes"
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
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
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)

// modernPost returns the request of a POST that is one modern request, or
// nil (a server that speaks no modern version serves every POST the
// legacy way, as a server of the old era does).
func (h *StreamableHandler) modernPost(msgs []messages.Message) *messages.Message {
	if !h.srv.opts.speaksModern() || len(msgs) != 1 || msgs[0].Kind != messages.KindRequest || !bytes.Contains(msgs[0].Params, modernMarker) {
		return nil
	}
	return &msgs[0]
}

func (h *StreamableHandler) postModern(w http.ResponseWriter, r *http.Request, body []byte, msgs []messages.Message, m *messages.Message) {
	if werr := checkModernHeaders(r, m); werr != nil {
		modernError(w, m.ID, werr)
		return
	}
	if _, werr := h.srv.modernRequest(m.Params); werr != nil {
		modernError(w, m.ID, werr)
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

// checkModernHeaders compares the mirrored headers with the body.
func checkModernHeaders(r *http.Request, m *messages.Message) *messages.WireError {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if decodeJSON(m.Params, &p) != nil {
		return invalidParams("params do not decode")
	}
	mismatch := func(header, got, want string) *messages.WireError {
		return &messages.WireError{Code: messages.CodeHeaderMismatch,
			Message: "Header mismatch: " + header + " header value '" + got + "' does not match body value '" + want + "'"}
	}
	if v := r.Header.Get(HeaderProtocolVersion); v != p.Meta.Version {
		return mismatch(HeaderProtocolVersion, v, p.Meta.Version)
	}
	if v := r.Header.Get(HeaderMethod); v != m.Method {
		return mismatch(HeaderMethod, v, m.Method)
	}
	want, named := "", false
	switch m.Method {
	case messages.MethodToolsCall, messages.MethodPromptsGet:
		want, named = p.Name, true
	case messages.MethodResourcesRead:
		want, named = p.URI, true
	}
	if named {
		got, ok := httpserve.DecodeHeaderValue(r.Header.Get(HeaderName))
		if !ok || got != want || len(r.Header.Values(HeaderName)) != 1 {
			return mismatch(HeaderName, r.Header.Get(HeaderName), want)
		}
	}
	return nil
}

// modernError answers a refused modern request: 400 and the JSON-RPC
// error with the request's id.
func modernError(w http.ResponseWriter, id messages.ID, werr *messages.WireError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(messages.AppendError(nil, id, werr))
}
