package gateway

import (
	"context"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// dispatch handles one request of the aggregated endpoint.
func (g *Gateway) dispatch(ctx context.Context, fs *frontSession, m *messages.Message, out *frontStream) (messages.RawMessage, *messages.WireError) {
	switch m.Method {
	case messages.MethodPing:
		return emptyResult, nil
	case messages.MethodInitialize:
		return nil, &messages.WireError{Code: messages.CodeInvalidRequest, Message: "the session is already initialized"}
	case messages.MethodLoggingSetLevel:
		var p messages.SetLevelParams
		if messages.Unmarshal(m.Params, &p) != nil || !fs.setLogLevel(p.Level) {
			return nil, invalidParams("logging/setLevel needs a level (debug … emergency)")
		}
		return emptyResult, nil
	case messages.MethodToolsList:
		return g.aggregate(ctx, fs.who, listTools)
	case messages.MethodResourcesList:
		return g.aggregate(ctx, fs.who, listResources)
	case messages.MethodResourcesTemplatesList:
		return g.aggregate(ctx, fs.who, listTemplates)
	case messages.MethodPromptsList:
		return g.aggregate(ctx, fs.who, listPrompts)
	case messages.MethodToolsCall:
		return g.callNamed(ctx, fs, m, out, kindTools)
	case messages.MethodPromptsGet:
		return g.callNamed(ctx, fs, m, out, kindPrompts)
	case messages.MethodResourcesRead:
		return g.readResource(ctx, fs, m, out)
	case messages.MethodResourcesSubscribe:
		return g.subscribe(ctx, fs, m)
	case messages.MethodResourcesUnsubscribe:
		return g.unsubscribe(ctx, fs, m)
	case messages.MethodCompletionComplete:
		return g.complete(ctx, fs, m, out)
	case messages.MethodSubscriptionsListen:
		return g.listen(ctx, fs, m, out)
	}
	return nil, methodNotFound(m.Method)
}

var emptyResult = messages.RawMessage("{}")

// aggregate is one list over every server the client may use, with the
// servers' prefixes on the names and what the policies hide left out. It
// is one page: the gateway has no cursors of its own.
func (g *Gateway) aggregate(ctx context.Context, who *principal, k listKind) (messages.RawMessage, *messages.WireError) {
	buf := make([]byte, 0, 1024)
	buf = append(buf, `{"`...)
	buf = append(buf, k.key()...)
	buf = append(buf, `":[`...)
	n := 0
	for _, u := range g.order {
		acc := who.access[u.name]
		if !acc.allows(kindServers, u.name) {
			continue
		}
		// A server still making its first connection is waited for
		// (ReadyWait at most): a client that lists right after the gateway
		// started should see it. One that was up and is down is skipped at
		// once; its return is announced with list_changed.
		if !u.available.Load() && (u.everReady.Load() || u.pool.acquire(ctx, g.cfg.ReadyWait, nil) == nil) {
			continue
		}
		items, err := u.list(ctx, k)
		if err != nil {
			g.log.Debug("gateway: listing a server failed", "server", u.name, "method", k.method(), "err", err)
			continue
		}
		for i := range items {
			if !acc.allows(k.ruleKind(), items[i].key(k)) {
				continue
			}
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, items[i].renamed...)
			n++
		}
	}
	return append(buf, "]}"...), nil
}

// progressMeta is the progress token in a request's params._meta.
type progressMeta struct {
	Meta *struct {
		ProgressToken *messages.ID `json:"progressToken"`
	} `json:"_meta"`
}

// progressToken is the client's token, nil when it asked for no progress.
func (p *progressMeta) progressToken() *messages.ID {
	if p.Meta == nil || p.Meta.ProgressToken == nil || !p.Meta.ProgressToken.IsValid() {
		return nil
	}
	return p.Meta.ProgressToken
}

// namedParams is the part of tools/call and prompts/get params the
// gateway reads.
type namedParams struct {
	Name      string              `json:"name"`
	Arguments messages.RawMessage `json:"arguments"`
	progressMeta
}

// callNamed forwards tools/call or prompts/get to the server the name's
// prefix names, with the server's own name in the params.
func (g *Gateway) callNamed(ctx context.Context, fs *frontSession, m *messages.Message, out *frontStream, kind ruleKind) (messages.RawMessage, *messages.WireError) {
	var p namedParams
	if err := messages.Unmarshal(m.Params, &p); err != nil || p.Name == "" {
		return nil, invalidParams(m.Method + " needs a name")
	}
	u, name, ok := g.resolveName(p.Name)
	if !ok {
		return nil, invalidParams("unknown " + kind.noun() + ": " + p.Name)
	}
	params, err := setMember(m.Params, "name", messages.AppendJSONString(nil, name))
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	r := &fwd{who: fs.who, srv: u, method: m.Method, params: params, kind: kind, name: name, front: fs, out: out, endpoint: "mcp"}
	if kind == kindTools {
		r.args = p.Arguments
	}
	if tok := p.progressToken(); tok != nil && out != nil {
		r.progress = progressTo(out, *tok)
	}
	return g.forward(ctx, r)
}

// progressTo forwards a server's progress to the client under the
// client's own token, on the request's answer stream.
func progressTo(out *frontStream, tok messages.ID) func(messages.RawMessage) {
	client := tok.AppendJSON(nil)
	return func(params messages.RawMessage) {
		if p, err := setMember(params, messages.MetaProgressToken, client); err == nil {
			out.push(messages.AppendNotification(nil, messages.NotificationProgress, p))
		}
	}
}

// uriParams is the part of resources/read, resources/subscribe and
// resources/unsubscribe params the gateway reads.
type uriParams struct {
	URI string `json:"uri"`
	progressMeta
}

// completeParams is the part of completion/complete params the gateway
// reads: what the completion is about.
type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
}

func (g *Gateway) readResource(ctx context.Context, fs *frontSession, m *messages.Message, out *frontStream) (messages.RawMessage, *messages.WireError) {
	var p uriParams
	if err := messages.Unmarshal(m.Params, &p); err != nil || p.URI == "" {
		return nil, invalidParams("resources/read needs a uri")
	}
	u, ok := g.resolveURI(ctx, p.URI)
	if !ok {
		return nil, mcpserver.ResourceNotFound(p.URI, "no server offers resource "+p.URI, fs.modern)
	}
	r := &fwd{who: fs.who, srv: u, method: m.Method, params: m.Params, kind: kindResources, name: p.URI, front: fs, out: out, endpoint: "mcp"}
	if tok := p.progressToken(); tok != nil && out != nil {
		r.progress = progressTo(out, *tok)
	}
	res, werr := g.forward(ctx, r)
	if fs.modern && werr != nil && werr.Code == messages.CodeResourceNotFound {
		// An upstream of the handshake era says -32002; the client's era
		// says -32602 with data.uri.
		werr = mcpserver.ResourceNotFound(p.URI, werr.Message, true)
	}
	return res, werr
}

// subscribe subscribes the client to a resource. The gateway holds one
// upstream subscription per server and URI for all its clients.
func (g *Gateway) subscribe(ctx context.Context, fs *frontSession, m *messages.Message) (messages.RawMessage, *messages.WireError) {
	var p uriParams
	if err := messages.Unmarshal(m.Params, &p); err != nil || p.URI == "" {
		return nil, invalidParams("resources/subscribe needs a uri")
	}
	if werr := g.subscribeURI(ctx, fs, p.URI); werr != nil {
		return nil, werr
	}
	return emptyResult, nil
}

// subscribeURI subscribes the session to uri, if its policies allow.
func (g *Gateway) subscribeURI(ctx context.Context, fs *frontSession, uri string) *messages.WireError {
	u, ok := g.resolveURI(ctx, uri)
	if !ok {
		return resourceNotFound(uri)
	}
	acc := fs.who.access[u.name]
	if d := acc.check(kindServers, u.name); d != nil {
		return denied(u.name, d)
	}
	if d := acc.check(kindResources, uri); d != nil {
		return denied(u.name, d)
	}
	k := subKey{u.name, uri}
	if fs.subscribed(k) {
		return nil
	}
	if err := u.subscribe(ctx, uri); err != nil {
		werr, _ := upstreamError(u.name, err)
		return werr
	}
	if !fs.addSub(k) {
		// Subscribed twice at once, or the session ended meanwhile.
		_ = u.unsubscribe(context.WithoutCancel(ctx), uri)
	}
	return nil
}

func (g *Gateway) unsubscribe(ctx context.Context, fs *frontSession, m *messages.Message) (messages.RawMessage, *messages.WireError) {
	var p uriParams
	if err := messages.Unmarshal(m.Params, &p); err != nil || p.URI == "" {
		return nil, invalidParams("resources/unsubscribe needs a uri")
	}
	for _, u := range g.order {
		if fs.dropSub(subKey{u.name, p.URI}) {
			if err := u.unsubscribe(ctx, p.URI); err != nil {
				werr, _ := upstreamError(u.name, err)
				return nil, werr
			}
		}
	}
	return emptyResult, nil
}

// complete forwards completion/complete to the server of the prompt or
// resource template it is about.
func (g *Gateway) complete(ctx context.Context, fs *frontSession, m *messages.Message, out *frontStream) (messages.RawMessage, *messages.WireError) {
	var p completeParams
	if err := messages.Unmarshal(m.Params, &p); err != nil {
		return nil, invalidParams(err.Error())
	}
	r := &fwd{who: fs.who, method: m.Method, params: m.Params, front: fs, out: out, endpoint: "mcp"}
	switch p.Ref.Type {
	case "ref/prompt":
		u, name, ok := g.resolveName(p.Ref.Name)
		if !ok {
			return nil, invalidParams("unknown prompt: " + p.Ref.Name)
		}
		params, err := setRefName(m.Params, name)
		if err != nil {
			return nil, invalidParams(err.Error())
		}
		r.srv, r.params, r.kind, r.name = u, params, kindPrompts, name
	case "ref/resource":
		u, ok := g.resolveURI(ctx, p.Ref.URI)
		if !ok {
			return nil, resourceNotFound(p.Ref.URI)
		}
		r.srv, r.kind, r.name = u, kindResources, p.Ref.URI
	default:
		return nil, invalidParams("completion/complete needs a ref of type ref/prompt or ref/resource")
	}
	return g.forward(ctx, r)
}

// setMember returns the JSON object obj with member key set to value;
// the other members keep their bytes.
func setMember(obj messages.RawMessage, key string, value messages.RawMessage) (messages.RawMessage, error) {
	var m map[string]messages.RawMessage
	if err := messages.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	if string(m[key]) == string(value) {
		return obj, nil
	}
	m[key] = value
	return messages.Marshal(m)
}

// setRefName puts name into params.ref.name.
func setRefName(params messages.RawMessage, name string) (messages.RawMessage, error) {
	var m map[string]messages.RawMessage
	if err := messages.Unmarshal(params, &m); err != nil {
		return nil, err
	}
	ref, err := setMember(m["ref"], "name", messages.AppendJSONString(nil, name))
	if err != nil {
		return nil, err
	}
	return setMember(params, "ref", ref)
}
