package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
)

// Member is this process's place in the cluster.
type Member struct {
	cfg     Config
	system  *actor.ActorSystem
	cluster *protocluster.Cluster
	health  *membership
	log     *slog.Logger

	// topologySub feeds mu's copy of the member list: protoactor's own
	// MemberList is read without its lock, so the member keeps what the
	// topology events said.
	topologySub *eventstream.Subscription
	mu          sync.Mutex
	members     []MemberInfo
	// topologyChanges counts the topologies seen: each is a rebalance,
	// the sessions of members that left or joined moving.
	topologyChanges int
	topology        []*protocluster.Member
	// rdv places identities over topology (lookup).
	rdv    *protocluster.Rendezvous
	closed bool
	// beforeLeft places identities over the topology before the last one
	// that dropped members, and left holds the addresses dropped since
	// (until they join again): together they tell a session re-activated
	// because its owner left (activationReason).
	beforeLeft *protocluster.Rendezvous
	left       map[string]bool

	// metrics is nil without a meter provider.
	metrics *metrics

	sessions *sessionHost
	// serving counts the goroutines answering server requests
	// (serveRequest); Close waits for them.
	serving  sync.WaitGroup
	calls    *callWatch
	callsSub *eventstream.Subscription
	// callSeq numbers this member's calls (their call_ref).
	callSeq atomic.Uint64
}

// MemberInfo is one member as the topology last listed it.
type MemberInfo struct {
	// ID is the member's actor system id; Address its actor remote's
	// host:port.
	ID      string
	Address string
	Kinds   []string
}

// Start joins the cluster cfg describes and returns once this member is
// in it (protoactor's StartMember returns after the provider started;
// its own membership list fills as the provider reports peers).
func Start(ctx context.Context, cfg Config) (m *Member, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		if cfg.Listener != nil {
			cfg.Listener.Close()
		}
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lib := libraryLogger(&cfg, log)
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return lib }))
	ms, err := newMembership(ctx, &cfg, system)
	if err != nil {
		if cfg.Listener != nil {
			cfg.Listener.Close()
		}
		system.Shutdown()
		return nil, err
	}
	m = &Member{cfg: cfg, system: system, health: ms, log: log}
	m.sessions = newSessionHost(m)
	if m.metrics, err = newMetrics(m); err != nil {
		// Telemetry is not worth refusing to serve sessions for.
		log.Warn("cluster telemetry disabled: creating instruments failed", "err", err)
		m.metrics = nil
	}
	m.calls = newCallWatch()
	m.callsSub = system.EventStream.Subscribe(func(ev any) { m.calls.onEvent(system.Root, ev) })
	kinds := append([]*protocluster.Kind{m.sessions.kind()}, cfg.Kinds...)
	ccfg := protocluster.Configure(cfg.name(), ms.provider, disthash.New(),
		remote.Configure(ms.remoteHost, ms.remotePort),
		protocluster.WithKinds(kinds...))
	m.cluster = protocluster.New(system, ccfg)
	m.topologySub = system.EventStream.Subscribe(func(ev any) {
		if t, ok := ev.(*protocluster.ClusterTopology); ok {
			m.setTopology(t)
		}
	})
	// protoactor reports a port it cannot bind, and other start failures,
	// by panicking.
	defer func() {
		if r := recover(); r != nil {
			system.EventStream.Unsubscribe(m.topologySub)
			system.EventStream.Unsubscribe(m.callsSub)
			if ms.health != nil {
				_ = ms.health.Close()
			}
			system.Shutdown()
			m.metrics.stop()
			m.closeEngine()
			m, err = nil, fmt.Errorf("cluster: starting member: %v", r)
		}
	}()
	m.cluster.StartMember()
	if err := m.sessions.start(); err != nil {
		m.cluster.Shutdown(false)
		m.metrics.stop()
		m.closeEngine()
		return nil, err
	}
	m.log.Info("cluster member started", "cluster", cfg.name(), "address", system.Address(), "id", system.ID)
	return m, nil
}

func (m *Member) setTopology(t *protocluster.ClusterTopology) {
	list := make([]MemberInfo, 0, len(t.Members))
	for _, p := range t.Members {
		list = append(list, MemberInfo{ID: p.Id, Address: p.Address(), Kinds: slices.Clone(p.Kinds)})
	}
	slices.SortFunc(list, func(a, b MemberInfo) int {
		if a.Address < b.Address {
			return -1
		}
		if a.Address > b.Address {
			return 1
		}
		return 0
	})
	m.mu.Lock()
	m.members = list
	m.topologyChanges++
	if len(t.Left) > 0 {
		m.beforeLeft = m.rdv
		if m.left == nil {
			m.left = map[string]bool{}
		}
		for _, p := range t.Left {
			m.left[p.Address()] = true
		}
	}
	for _, p := range t.Joined {
		delete(m.left, p.Address())
	}
	m.topology = slices.Clone(t.Members)
	m.rdv = protocluster.NewRendezvous()
	m.rdv.UpdateMembers(t.Members)
	m.mu.Unlock()
	m.log.Info("cluster topology", "members", len(list), "joined", len(t.Joined), "left", len(t.Left),
		"sessions_here", len(m.sessions.ownedIdentities()))
}

// Members is the member list as the last topology event gave it, this
// member included, sorted by address.
func (m *Member) Members() []MemberInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.members)
}

// Address is this member's actor remote address (host:port), its key in
// Members.
func (m *Member) Address() string { return m.system.Address() }

// ID is this member's actor system id.
func (m *Member) ID() string { return m.system.ID }

// Cluster is the underlying protoactor cluster, for packages of this
// repository that add kinds of their own (Config.Kinds) and call them.
func (m *Member) Cluster() *protocluster.Cluster { return m.cluster }

// MembershipAddr is where other members reach this one for membership:
// the automanaged provider's health endpoint, else the actor remote.
func (m *Member) MembershipAddr() string {
	if m.health.health != nil {
		return m.health.health.Listener.Addr().String()
	}
	return m.system.Address()
}

func (m *Member) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// closeEngine closes the member's engine after a failed start.
func (m *Member) closeEngine() {
	ctx, cancel := context.WithTimeout(context.Background(), closeSessionTimeout)
	defer cancel()
	_ = m.sessions.engine.Close(ctx)
}
