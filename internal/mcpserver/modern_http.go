package mcpserver

import (
	"bytes"
	"net/http"
	"slices"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/messages"
)

// Header names of Streamable HTTP.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderLastEventID     = "Last-Event-Id"
	// The stateless era's request metadata, mirrored from the body.
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)

// ModernPost returns the request of a POST that looks like one modern
// request (its params name a protocol version in _meta), or nil; the
// caller checks it with CheckModernHeaders and ModernRequest. Batches and
// messages other than requests belong to the handshake era, and so does
// everything for a server that accepts no modern version.
func ModernPost(msgs []messages.Message, accepted []string) *messages.Message {
	if !slices.ContainsFunc(accepted, messages.IsModernVersion) || len(msgs) != 1 ||
		msgs[0].Kind != messages.KindRequest || !bytes.Contains(msgs[0].Params, modernMarker) {
		return nil
	}
	return &msgs[0]
}

// CheckModernHeaders compares the headers a 2026-07-28 request mirrors
// with its body: MCP-Protocol-Version the _meta version, Mcp-Method the
// method, Mcp-Name the name or URI of tools/call, prompts/get and
// resources/read (Base64-sentinel decoded). A mismatch is -32020, which
// an intermediary routing on the headers relies on.
func CheckModernHeaders(r *http.Request, m *messages.Message) *messages.WireError {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if strictCodec.Unmarshal(m.Params, &p) != nil {
		return &messages.WireError{Code: messages.CodeInvalidParams, Message: "params do not decode"}
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

// WriteModernError answers a refused modern request: 400 and the
// JSON-RPC error with the request's id (a 2026-07-28 client reads the
// body of a 4xx).
func WriteModernError(w http.ResponseWriter, id messages.ID, werr *messages.WireError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(messages.AppendError(nil, id, werr))
}
