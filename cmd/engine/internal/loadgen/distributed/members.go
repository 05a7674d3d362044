package distributed

import (
	"context"
	"slices"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/eventstream"
)

// ClusterKind is the cluster kind a member registers to say it runs a
// load worker (StartWorker). Nothing is placed on it by identity: its
// actor ignores every message; the membership carries the kind, and the
// coordinator picks the members that have it.
func ClusterKind() *cluster.Kind {
	return cluster.NewKind(Kind, actor.PropsFromFunc(func(actor.Context) {}))
}

// Membership follows the cluster's topology for a coordinator: the
// members that run load workers, and those that leave.
type Membership struct {
	es  *eventstream.EventStream
	sub *eventstream.Subscription

	mu      sync.Mutex
	members []string      // addresses of the members with Kind, sorted
	changed chan struct{} // closed and replaced when members change
	left    chan string   // buffered; see Left
}

// WatchMembership subscribes to system's topology events (its cluster
// started or about to start). Stop unsubscribes.
func WatchMembership(system *actor.ActorSystem) *Membership {
	m := &Membership{es: system.EventStream, changed: make(chan struct{}), left: make(chan string, 64)}
	m.sub = system.EventStream.Subscribe(func(evt any) {
		if t, ok := evt.(*cluster.ClusterTopology); ok {
			m.update(t)
		}
	})
	return m
}

func (m *Membership) update(t *cluster.ClusterTopology) {
	var now []string
	for _, mem := range t.Members {
		if mem.HasKind(Kind) {
			now = append(now, mem.Address())
		}
	}
	slices.Sort(now)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mem := range t.Left {
		if mem.HasKind(Kind) {
			select {
			case m.left <- mem.Address():
			default: // a run counts a member that goes silent as lost anyway
			}
		}
	}
	if !slices.Equal(now, m.members) {
		m.members = now
		close(m.changed)
		m.changed = make(chan struct{})
	}
}

// Seed adds members known from elsewhere (the member list as it stood
// before the subscription): a topology event sent before WatchMembership
// is not delivered again.
func (m *Membership) Seed(addrs []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := slices.Clone(m.members)
	for _, a := range addrs {
		if !slices.Contains(now, a) {
			now = append(now, a)
		}
	}
	slices.Sort(now)
	if !slices.Equal(now, m.members) {
		m.members = now
		close(m.changed)
		m.changed = make(chan struct{})
	}
}

// Members are the addresses of the members that run load workers now.
func (m *Membership) Members() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.members)
}

// Wait waits until at least n members run load workers, or ctx ends; it
// returns the members it has then.
func (m *Membership) Wait(ctx context.Context, n int) []string {
	for {
		m.mu.Lock()
		have, ch := slices.Clone(m.members), m.changed
		m.mu.Unlock()
		if len(have) >= n {
			return have
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return have
		}
	}
}

// Left delivers the addresses of load-worker members the cluster says
// left (Options.Left).
func (m *Membership) Left() <-chan string { return m.left }

// Stop unsubscribes from the topology events.
func (m *Membership) Stop() { m.es.Unsubscribe(m.sub) }
