package cluster

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
	"github.com/mcpengine/mcpengine/messages"
)

// A session's watchers are actors on any member (a gateway's upstream
// slot) that get the session's notifications and state changes. A watch
// is a lease the watcher renews (Watcher): a member that dies stops
// renewing and its watches lapse, and after a hand-over the watchers
// renew on the new owner's grain, which is how they find it.

// watchLease is how long a watch lasts without renewal.
const watchLease = 15 * time.Second

// watcher is one watching actor and when it last renewed.
type watcher struct {
	pid     *actor.PID
	renewed time.Time
}

// sessionNotified is posted by the session's notification dispatcher.
type sessionNotified struct{ n mcpengine.Notification }

// sessionStateChanged is posted by the session's state watch.
type sessionStateChanged struct{}

func (g *sessionGrain) watch(w *clusterpb.SessionWatch) {
	key := w.Address + "/" + w.Id
	g.watchers[key] = &watcher{pid: actor.NewPID(w.Address, w.Id), renewed: time.Now()}
}

// broadcast sends ev to every watcher whose lease holds, and drops the
// others.
func (g *sessionGrain) broadcast(ctx actor.Context, ev *clusterpb.SessionEvent) {
	now := time.Now()
	for key, w := range g.watchers {
		if now.Sub(w.renewed) > watchLease {
			delete(g.watchers, key)
			continue
		}
		ctx.Send(w.pid, ev)
	}
}

// status is the session's state as watchers see it.
func (g *sessionGrain) status() *clusterpb.SessionStatus {
	st := &clusterpb.SessionStatus{Owner: g.host.m.system.Address(), State: mcpengine.StateConnecting.String()}
	if g.failed != nil {
		st.State, st.LastError = mcpengine.StateClosed.String(), g.failed.Error()
		return st
	}
	s := g.sess
	if s == nil {
		return st
	}
	st.State = s.State().String()
	st.Restarts = s.Stats().Restarts
	if err := s.LastError(); err != nil {
		st.LastError = err.Error()
	}
	init := messages.InitializeResult{
		ProtocolVersion: s.ProtocolVersion(),
		Capabilities:    s.Capabilities(),
		ServerInfo:      s.ServerInfo(),
		Instructions:    s.Instructions(),
	}
	if raw, err := messages.Marshal(&init); err == nil {
		st.Initialize = raw
	}
	return st
}
