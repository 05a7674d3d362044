package gateway

import (
	"bytes"
	"context"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Requests a server sends to its client (sampling, elicitation, roots)
// arrive on the gateway's upstream session, which several gateway clients
// share. Each goes to the gateway client whose request is in flight on
// that session (member.attribute), on that request's answer stream when it
// is still open, else on the client's standalone stream. When it cannot be
// attributed to exactly one client it is refused rather than guessed; a
// server asking for roots outside of any request gets the server's
// configured roots.

// askClient forwards one server request to the gateway client it belongs
// to and returns the client's raw answer.
func (g *Gateway) askClient(ctx context.Context, m *member, method string, params any, can func(messages.ClientCapabilities) bool) (messages.RawMessage, error) {
	f, why := m.attribute()
	if f == nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "gateway: cannot forward " + method + ": " + why}
	}
	if !can(f.front.caps) {
		return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "gateway: the client did not declare the capability " + method + " needs"}
	}
	raw, err := messages.Marshal(params)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(raw, []byte(`"progressToken"`)) {
		// The server asked for progress on its request: the client gets a
		// token of the gateway's (tokens of several servers could collide
		// in one client session) and its progress goes back under the
		// server's (frontSession.progress).
		var probe struct {
			Meta *struct {
				ProgressToken messages.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		if messages.Unmarshal(raw, &probe) == nil && probe.Meta != nil && len(probe.Meta.ProgressToken) > 0 {
			tok, tokJSON := g.progress.token()
			raw = messages.WithMeta(raw, messages.MetaField{Key: messages.MetaProgressToken, Value: tokJSON})
			defer f.front.mapProgress(tok, serverToken{m: m, tok: probe.Meta.ProgressToken})()
		}
	}
	return f.front.request(ctx, f.out, method, raw)
}

func (g *Gateway) forwardSampling(ctx context.Context, m *member, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
	raw, err := g.askClient(ctx, m, messages.MethodSamplingCreateMessage, p,
		func(c messages.ClientCapabilities) bool { return c.Sampling != nil })
	if err != nil {
		return nil, err
	}
	var res messages.CreateMessageResult
	if err := messages.Unmarshal(raw, &res); err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "gateway: the client's sampling result: " + err.Error()}
	}
	return &res, nil
}

func (g *Gateway) forwardElicitation(ctx context.Context, m *member, p *messages.ElicitParams) (*messages.ElicitResult, error) {
	raw, err := g.askClient(ctx, m, messages.MethodElicitationCreate, p,
		func(c messages.ClientCapabilities) bool { return c.Elicitation != nil })
	if err != nil {
		return nil, err
	}
	var res messages.ElicitResult
	if err := messages.Unmarshal(raw, &res); err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "gateway: the client's elicitation result: " + err.Error()}
	}
	return &res, nil
}

// forwardRoots answers a server's roots/list: the attributed client's
// roots, or the server's configured ones when there is no such client or
// it has no roots capability.
func (g *Gateway) forwardRoots(ctx context.Context, m *member) ([]messages.Root, error) {
	f, _ := m.attribute()
	if f == nil || f.front.caps.Roots == nil {
		return m.srv.cfg.Roots, nil
	}
	raw, err := f.front.request(ctx, f.out, messages.MethodRootsList, nil)
	if err != nil {
		return nil, err
	}
	var res messages.ListRootsResult
	if err := messages.Unmarshal(raw, &res); err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "gateway: the client's roots: " + err.Error()}
	}
	return res.Roots, nil
}

// rootsListChanged passes a gateway client's notifications/roots/list_changed
// on to the sessions of every server the client may use. The gateway's
// sessions declare roots.listChanged to their servers, so a server that
// keeps the roots it was told asks again, and that roots/list reaches the
// client whose request is then in flight (forwardRoots).
func (g *Gateway) rootsListChanged(ctx context.Context, who *principal) {
	for _, u := range g.order {
		if !who.access[u.name].allows(kindServers, u.name) {
			continue
		}
		for _, m := range u.pool.members {
			if m.s.State() != mcpengine.StateReady {
				continue // a session that reconnects asks for roots anew
			}
			if err := m.s.Notify(ctx, messages.NotificationRootsListChanged, nil); err != nil {
				g.log.Debug("gateway: forwarding roots/list_changed failed", "server", u.name, "err", err)
			}
		}
	}
}
