package gateway

import (
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/messages"
)

// serveRoute is the routing protocol: a client POSTs one ordinary JSON-RPC
// message with a "server_id" member naming the server,
//
//	{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{...},"server_id":"files"}
//
// and gets the server's answer with its own id: the result (or the
// server's JSON-RPC error) exactly as the server sent it. Names are the
// server's own, without prefixes. The gateway's own errors are JSON-RPC
// errors too: CodeServerNotFound ("Server 'x' not found"),
// CodeUnavailable ("Failed to connect to server"), CodeDenied,
// CodeRateLimited, CodeToolTimeLimit. A notification is forwarded and
// answered 202. Lists a policy filters are re-encoded without the hidden
// entries; every other answer keeps the server's bytes.
//
// The routing protocol has no stream, so what needs one is refused:
// resources/subscribe, resources/unsubscribe and logging/setLevel (which
// would also change the upstream session other clients share). Progress is
// not forwarded, and requests the server sends while handling a routed
// request are refused (see member.attribute).
func (g *Gateway) serveRoute(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		httpserve.MethodNotAllowed(w, "POST")
		return
	}
	// A web page may POST to a loopback address too; a JSON content type
	// (which a page cannot send without a CORS preflight the gateway never
	// answers) and the guard's Host and Origin checks keep pages out.
	if !httpserve.IsJSONContent(r) {
		httpserve.Refuse(w, r, http.StatusUnsupportedMediaType, messages.CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	who, aerr := g.auth.authenticate(r)
	if aerr != nil {
		writeAuthError(w, r, aerr)
		return
	}
	body := httpserve.ReadBody(w, r, g.cfg.MaxBodyBytes)
	if body == nil {
		return
	}
	m, err := messages.DecodeMessage(body)
	if err != nil {
		code := int64(messages.CodeInvalidRequest)
		if !messages.Valid(body) {
			code = messages.CodeParseError
		}
		writeJSONAnswer(w, messages.AppendError(nil, messages.ID{}, &messages.WireError{Code: code, Message: err.Error()}))
		return
	}
	var env struct {
		ServerID *string `json:"server_id"`
	}
	_ = messages.Unmarshal(body, &env)
	switch {
	case m.Kind == messages.KindResponse:
		writeJSONAnswer(w, messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInvalidRequest, Message: "the routing protocol takes requests and notifications"}))
		return
	case env.ServerID == nil:
		g.routeAnswer(w, &m, nil, &messages.WireError{Code: messages.CodeInvalidRequest, Message: `missing "server_id"`})
		return
	}
	u := g.servers[*env.ServerID]
	if u == nil {
		g.routeAnswer(w, &m, nil, serverNotFound(*env.ServerID))
		return
	}
	if m.Kind == messages.KindNotification {
		g.routeNotification(w, r, who, u, &m)
		return
	}
	res, werr := g.routeRequest(r, who, u, &m)
	g.routeAnswer(w, &m, res, werr)
}

// routeAnswer writes the answer to a routed message: nothing more than 202
// for a notification, nothing at all for a request whose client went
// away.
func (g *Gateway) routeAnswer(w http.ResponseWriter, m *messages.Message, res messages.RawMessage, werr *messages.WireError) {
	switch {
	case m.Kind == messages.KindNotification:
		w.WriteHeader(http.StatusAccepted)
	case werr == errNoAnswer:
	case werr != nil:
		writeJSONAnswer(w, messages.AppendError(nil, m.ID, werr))
	default:
		writeJSONAnswer(w, messages.AppendResult(nil, m.ID, res))
	}
}

func (g *Gateway) routeRequest(r *http.Request, who *principal, u *upstream, m *messages.Message) (messages.RawMessage, *messages.WireError) {
	ctx := r.Context()
	f := &fwd{who: who, srv: u, method: m.Method, params: m.Params, endpoint: "rpc"}
	switch m.Method {
	case messages.MethodInitialize:
		return g.routeInitialize(r, who, u)
	case messages.MethodResourcesSubscribe, messages.MethodResourcesUnsubscribe, messages.MethodLoggingSetLevel:
		return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: m.Method + " is not available over the routing protocol (no stream to carry what follows): use the MCP endpoint"}
	case messages.MethodToolsCall, messages.MethodPromptsGet:
		var p namedParams
		if err := messages.Unmarshal(m.Params, &p); err != nil || p.Name == "" {
			return nil, invalidParams(m.Method + " needs a name")
		}
		f.kind, f.name = kindPrompts, p.Name
		if m.Method == messages.MethodToolsCall {
			f.kind, f.args = kindTools, p.Arguments
		}
	case messages.MethodResourcesRead:
		var p uriParams
		if err := messages.Unmarshal(m.Params, &p); err != nil || p.URI == "" {
			return nil, invalidParams("resources/read needs a uri")
		}
		f.kind, f.name = kindResources, p.URI
	case messages.MethodCompletionComplete:
		var p completeParams
		if err := messages.Unmarshal(m.Params, &p); err == nil {
			switch p.Ref.Type {
			case "ref/prompt":
				f.kind, f.name = kindPrompts, p.Ref.Name
			case "ref/resource":
				f.kind, f.name = kindResources, p.Ref.URI
			}
		}
	}
	res, werr := g.forward(ctx, f)
	if werr != nil {
		return nil, werr
	}
	switch m.Method {
	case messages.MethodToolsList:
		return filterList(res, listTools, who.access[u.name]), nil
	case messages.MethodResourcesList:
		return filterList(res, listResources, who.access[u.name]), nil
	case messages.MethodResourcesTemplatesList:
		return filterList(res, listTemplates, who.access[u.name]), nil
	case messages.MethodPromptsList:
		return filterList(res, listPrompts, who.access[u.name]), nil
	}
	return res, nil
}

// routeInitialize answers initialize with what the server told the
// gateway in its own handshake: the session is the gateway's, already
// initialized.
func (g *Gateway) routeInitialize(r *http.Request, who *principal, u *upstream) (messages.RawMessage, *messages.WireError) {
	if d := who.access[u.name].check(kindServers, u.name); d != nil {
		return nil, denied(u.name, d)
	}
	m := u.pool.acquire(r.Context(), g.cfg.ReadyWait, nil)
	if m == nil {
		return nil, unavailable(u.name, u.lastError())
	}
	raw, err := messages.Marshal(&messages.InitializeResult{
		ProtocolVersion: m.s.ProtocolVersion(),
		Capabilities:    m.s.Capabilities(),
		ServerInfo:      m.s.ServerInfo(),
		Instructions:    m.s.Instructions(),
	})
	if err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}
	}
	return raw, nil
}

// routeNotification forwards a client notification, except those that
// belong to the gateway's own session with the server (initialized) or
// name requests the server never saw under that id (cancelled).
func (g *Gateway) routeNotification(w http.ResponseWriter, r *http.Request, who *principal, u *upstream, m *messages.Message) {
	defer w.WriteHeader(http.StatusAccepted)
	switch m.Method {
	case messages.NotificationInitialized, messages.NotificationCancelled, messages.NotificationProgress:
		return
	}
	if who.access[u.name].check(kindServers, u.name) != nil {
		return
	}
	if mem := u.pool.pick(nil); mem != nil {
		if err := mem.s.Notify(r.Context(), m.Method, m.Params); err != nil {
			g.log.Debug("gateway: forwarding a notification failed", "server", u.name, "method", m.Method, "err", err)
		}
	}
}

// filterList removes from a list result the entries the client's policies
// hide. When none is hidden the server's bytes are returned unchanged.
func filterList(raw messages.RawMessage, k listKind, acc *access) messages.RawMessage {
	var res map[string]messages.RawMessage
	if messages.Unmarshal(raw, &res) != nil {
		return raw
	}
	var entries []messages.RawMessage
	if messages.Unmarshal(res[k.key()], &entries) != nil {
		return raw
	}
	kept := entries[:0:0]
	for _, e := range entries {
		var probe struct {
			Name        string `json:"name"`
			URI         string `json:"uri"`
			URITemplate string `json:"uriTemplate"`
		}
		if messages.Unmarshal(e, &probe) != nil {
			continue
		}
		key := probe.Name
		switch k {
		case listResources:
			key = probe.URI
		case listTemplates:
			key = probe.URITemplate
		}
		if acc.allows(k.ruleKind(), key) {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(entries) {
		return raw
	}
	list, err := messages.Marshal(kept)
	if err != nil {
		return raw
	}
	res[k.key()] = list
	out, err := messages.Marshal(res)
	if err != nil {
		return raw
	}
	return out
}
