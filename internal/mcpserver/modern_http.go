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

// ModernPost returns the request of a POST that is one modern request, or
// nil: its params name a protocol version in _meta, or, without a session
// id, its MCP-Protocol-Version header names a version of the stateless
// era (a 2026-07-28 client that left _meta out: its request is refused
// with its id, not taken for a handshake-era request without a session).
// The caller checks it with RequireModernRequest and CheckModernHeaders.
// Batches and messages other than requests belong to the handshake era,
// and so does everything for a server that accepts no modern version.
func ModernPost(r *http.Request, msgs []messages.Message, accepted []string) *messages.Message {
	if !slices.ContainsFunc(accepted, messages.IsModernVersion) || len(msgs) != 1 || msgs[0].Kind != messages.KindRequest {
		return nil
	}
	if bytes.Contains(msgs[0].Params, modernMarker) ||
		(r.Header.Get(HeaderSessionID) == "" && messages.IsModernVersion(r.Header.Get(HeaderProtocolVersion))) {
		return &msgs[0]
	}
	return nil
}

// RequireModernRequest is ModernRequest for a request known to be modern
// (ModernPost's): params without the modern _meta are refused with
// -32602 too.
func RequireModernRequest(params messages.RawMessage, accepted []string) (*ModernMeta, *messages.WireError) {
	meta, werr := ModernRequest(params, accepted)
	if meta == nil && werr == nil {
		return nil, &messages.WireError{Code: messages.CodeInvalidParams,
			Message: "missing or invalid _meta: a " + messages.Version20260728 + " request names " + messages.MetaProtocolVersion + " and " + messages.MetaClientCapabilities + " in params._meta"}
	}
	return meta, werr
}

// ModernMethodNotFound is the refusal of a modern request for a method
// the server does not serve in the stateless era: one it does not know,
// or one 2026-07-28 removed (initialize, ping, logging/setLevel,
// resources/subscribe and unsubscribe). WriteModernError answers it with
// 404.
func ModernMethodNotFound(method string) *messages.WireError {
	msg := "method not found: " + method
	if RemovedInModern(method) {
		msg = method + " does not exist in protocol version " + messages.Version20260728
	}
	return &messages.WireError{Code: messages.CodeMethodNotFound, Message: msg}
}

// ResourceNotFound is the error of resources/read (or a subscription) for
// a URI the server does not have: -32602 with data.uri in the stateless
// era (SEP-2164), -32002 with data.uri before it.
func ResourceNotFound(uri, message string, modern bool) *messages.WireError {
	data := messages.AppendJSONString([]byte(`{"uri":`), uri)
	code := int64(messages.CodeResourceNotFound)
	if modern {
		code = messages.CodeInvalidParams
	}
	return &messages.WireError{Code: code, Message: message, Data: append(data, '}')}
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

// WriteModernError answers a refused modern request with the JSON-RPC
// error and the request's id (a 2026-07-28 client reads the body of a
// 4xx): 404 for a method not found, as the revision's transport asks,
// 400 for the rest.
func WriteModernError(w http.ResponseWriter, id messages.ID, werr *messages.WireError) {
	status := http.StatusBadRequest
	if werr.Code == messages.CodeMethodNotFound {
		status = http.StatusNotFound
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(messages.AppendError(nil, id, werr))
}
