package gateway

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// upstream is one configured server: its pool of sessions, its policy, its
// cached lists and the subscriptions the gateway holds on its clients'
// behalf.
type upstream struct {
	g       *Gateway
	name    string
	prefix  string
	cfg     Server
	layer   *layer // the server's own policy
	pool    *pool
	catalog catalog

	available atomic.Bool // some member is ready
	everReady atomic.Bool // some member was ready once

	subMu sync.Mutex // held across the subscribe and unsubscribe calls
	subs  map[string]*subscription
}

// subscription is one resource URI subscribed upstream for one or more
// gateway clients, on the member that holds it (the engine replays it
// after that member reconnects).
type subscription struct {
	m    *member
	refs int
}

// openUpstream starts a server's pool; the sessions connect in the
// background.
func (g *Gateway) openUpstream(ctx context.Context, name string, s Server) (*upstream, error) {
	cp, err := compilePolicy(s.Policy)
	if err != nil {
		return nil, err
	}
	u := &upstream{
		g:      g,
		name:   name,
		prefix: s.prefix(name),
		cfg:    s,
		layer:  newLayer("server "+strconv.Quote(name), cp),
		pool:   newPool(),
		subs:   map[string]*subscription{},
	}
	for i := range max(1, s.Pool) {
		m := &member{srv: u, index: i, flights: map[*flight]struct{}{}}
		if g.member != nil {
			g.openClusterSlot(m)
			u.pool.members = append(u.pool.members, m)
			continue
		}
		sess, err := g.eng.Open(ctx, mcpengine.SessionConfig{
			Name:   fmt.Sprintf("%s#%d", name, i),
			Server: s.Target,
			Dialer: s.Dialer, // nil: the engine dials Target
			// Asked at the time the server asks: the client whose request
			// is in flight on this member answers (server_requests.go).
			RootsHandler: func(ctx context.Context) ([]messages.Root, error) { return g.forwardRoots(ctx, m) },
			Sampling: func(ctx context.Context, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
				return g.forwardSampling(ctx, m, p)
			},
			Elicitation: func(ctx context.Context, p *messages.ElicitParams) (*messages.ElicitResult, error) {
				return g.forwardElicitation(ctx, m, p)
			},
		})
		if err != nil {
			return nil, fmt.Errorf("gateway: server %q: %w", name, err)
		}
		m.s = localSession{sess}
		u.pool.members = append(u.pool.members, m)
	}
	if g.member != nil {
		g.watchClusterSlots(u)
	}
	for _, m := range u.pool.members {
		s, ok := m.s.(localSession)
		if !ok {
			continue // a cluster session's watcher reports (watchClusterSlots)
		}
		s.OnNotification(func(n mcpengine.Notification) { g.onNotification(m, n) })
		s.WatchState(func(mcpengine.StateChange) { u.stateChanged() })
	}
	u.stateChanged() // transitions before the watches were in place
	return u, nil
}

// stateChanged runs on a member's state change (on its callback
// dispatcher: it must not block). When the server as a whole comes up or
// goes down its lists change for the gateway's clients.
func (u *upstream) stateChanged() {
	u.pool.stateChanged()
	up := u.pool.ready() > 0
	if up {
		u.everReady.Store(true)
	}
	if u.available.Swap(up) == up {
		return
	}
	u.g.log.Info("gateway: server availability changed", "server", u.name, "available", up)
	u.catalog.invalidateAll()
	for _, k := range []listKind{listTools, listResources, listPrompts} {
		u.g.fronts.broadcast(k.changedNotification())
	}
}

// onNotification handles a server notification (on the member's callback
// dispatcher).
func (g *Gateway) onNotification(m *member, n mcpengine.Notification) {
	u := m.srv
	switch n.Method {
	case messages.NotificationToolsListChanged:
		u.catalog.invalidate(listTools)
	case messages.NotificationPromptsListChanged:
		u.catalog.invalidate(listPrompts)
	case messages.NotificationResourcesListChanged:
		u.catalog.invalidate(listResources)
		u.catalog.invalidate(listTemplates)
	case messages.NotificationResourcesUpdated:
		var p struct {
			URI string `json:"uri"`
		}
		if messages.Unmarshal(n.Params, &p) == nil && p.URI != "" {
			g.fronts.resourceUpdated(u.name, p.URI, messages.AppendNotification(nil, n.Method, n.Params))
		}
		return
	case messages.NotificationMessage:
		var p struct {
			Level messages.LoggingLevel `json:"level"`
		}
		if messages.Unmarshal(n.Params, &p) == nil {
			g.fronts.logMessage(p.Level, messages.AppendNotification(nil, n.Method, n.Params))
		}
		return
	default:
		return
	}
	g.fronts.broadcast(n.Method)
}

// subscribe subscribes uri upstream unless some client already did.
func (u *upstream) subscribe(ctx context.Context, uri string) error {
	u.subMu.Lock()
	defer u.subMu.Unlock()
	if s := u.subs[uri]; s != nil {
		s.refs++
		return nil
	}
	m := u.pool.acquire(ctx, u.g.cfg.ReadyWait, nil)
	if m == nil {
		return unavailable(u.name, nil)
	}
	if err := m.s.Subscribe(ctx, uri); err != nil {
		return err
	}
	u.subs[uri] = &subscription{m: m, refs: 1}
	return nil
}

// unsubscribe drops one client's interest in uri, and the upstream
// subscription with the last one.
func (u *upstream) unsubscribe(ctx context.Context, uri string) error {
	u.subMu.Lock()
	defer u.subMu.Unlock()
	s := u.subs[uri]
	if s == nil {
		return nil
	}
	if s.refs--; s.refs > 0 {
		return nil
	}
	delete(u.subs, uri)
	return s.m.s.Unsubscribe(ctx, uri)
}
