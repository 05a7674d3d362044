package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/messages"
)

// A gateway with Config.Cluster is a member of an engine cluster, and its
// pool slots are cluster sessions named alike on every gateway
// (SERVER/pool-N): several gateways behind one load balancer share one
// set of upstream sessions, each owned by one member. Requests go to the
// owner; a Watcher per slot brings the session's state, initialize result
// and notifications here; the server's requests during a call come back
// to the member that made the call (Config.ServerRequests of the member,
// answered by serveClusterRequest).

// startCluster joins the cluster with the servers' table and the engine
// configuration the gateway would use itself.
func (g *Gateway) startCluster(ctx context.Context, ec mcpengine.Config) error {
	cc := *g.cfg.Cluster
	cc.Servers = map[string]mcpengine.ServerConfig{}
	for _, name := range slices.Sorted(maps.Keys(g.cfg.Servers)) {
		s := g.cfg.Servers[name]
		if s.Dialer != nil {
			return fmt.Errorf("gateway: server %q: a Dialer cannot be used in a cluster (every member opens sessions from the server table)", name)
		}
		cc.Servers[name] = s.Target
	}
	cc.Engine = ec
	if cc.Logger == nil {
		cc.Logger = g.log
	}
	cc.ServerRequests = g.serveClusterRequest
	m, err := cluster.Start(ctx, cc)
	if err != nil {
		return err
	}
	g.member = m
	g.slots = map[string]*member{}
	return nil
}

// openClusterSlot makes pool slot m a cluster session.
func (g *Gateway) openClusterSlot(m *member) {
	cs := &clusterSession{rs: g.member.Session(m.srv.name, clusterSessionName(m.index))}
	g.slotsMu.Lock()
	g.slots[cs.rs.Identity()] = m
	g.slotsMu.Unlock()
	m.s = cs
}

// watchClusterSlots starts watching a server's slots, once its pool is
// complete: a watcher's events read every slot's state.
func (g *Gateway) watchClusterSlots(u *upstream) {
	for _, m := range u.pool.members {
		cs := m.s.(*clusterSession)
		cs.w.Store(cs.rs.Watch(func(ev cluster.Event) {
			if ev.Status != nil {
				u.clusterStateChanged(m, ev.Status)
				return
			}
			g.onNotification(m, mcpengine.Notification{Method: ev.Method, Params: ev.Params})
		}))
	}
}

// clusterStateChanged runs on the slot watcher's actor. A session that
// moved to another owner was connected anew there: its lists may have
// changed, so the clients are told (as for a server coming back), and
// the resource subscriptions held on it are made again.
func (u *upstream) clusterStateChanged(m *member, st *cluster.Status) {
	cs := m.s.(*clusterSession)
	prev := cs.lastOwner
	if st.Owner != "" {
		cs.lastOwner = st.Owner
	}
	u.stateChanged()
	if prev == "" || st.Owner == "" || prev == st.Owner {
		return
	}
	u.g.log.Info("gateway: cluster session moved", "session", cs.Name(), "from", prev, "to", st.Owner)
	u.catalog.invalidateAll()
	for _, k := range []listKind{listTools, listResources, listPrompts} {
		u.g.fronts.broadcast(k.changedNotification())
	}
	u.g.resubscribe(u, m)
}

// serveClusterRequest answers a server request the owner of one of this
// gateway's slots sent here: to the client whose request is in flight on
// the slot (here), as for a local session.
func (g *Gateway) serveClusterRequest(ctx context.Context, identity, method string, params json.RawMessage) (json.RawMessage, error) {
	g.slotsMu.Lock()
	m := g.slots[identity]
	g.slotsMu.Unlock()
	if m == nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "gateway: no pool slot " + identity}
	}
	switch method {
	case messages.MethodSamplingCreateMessage:
		var p messages.CreateMessageParams
		if err := messages.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		res, err := g.forwardSampling(ctx, m, &p)
		if err != nil {
			return nil, err
		}
		return messages.Marshal(res)
	case messages.MethodElicitationCreate:
		var p messages.ElicitParams
		if err := messages.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		res, err := g.forwardElicitation(ctx, m, &p)
		if err != nil {
			return nil, err
		}
		return messages.Marshal(res)
	case messages.MethodRootsList:
		roots, err := g.forwardRoots(ctx, m)
		if err != nil {
			return nil, err
		}
		return messages.Marshal(&messages.ListRootsResult{Roots: roots})
	}
	return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "gateway: " + method + " is not forwarded"}
}

// closeCluster stops the slots' watchers, then leaves the cluster (its
// sessions move to the other gateways).
func (g *Gateway) closeCluster(ctx context.Context) error {
	if g.member == nil {
		return nil
	}
	for _, u := range g.order {
		for _, m := range u.pool.members {
			if cs, ok := m.s.(*clusterSession); ok {
				if w := cs.w.Load(); w != nil {
					w.Close()
				}
			}
		}
	}
	return g.member.Close(ctx)
}
