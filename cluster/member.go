package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

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
	closed      bool
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
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lib := libraryLogger(&cfg, log)
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return lib }))
	ms, err := newMembership(&cfg, system)
	if err != nil {
		return nil, err
	}
	m = &Member{cfg: cfg, system: system, health: ms, log: log}
	kinds := cfg.Kinds
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
			if ms.health != nil {
				_ = ms.health.Close()
			}
			system.Shutdown()
			m, err = nil, fmt.Errorf("cluster: starting member: %v", r)
		}
	}()
	m.cluster.StartMember()
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
	m.mu.Unlock()
	m.log.Info("cluster topology", "members", len(list), "joined", len(t.Joined), "left", len(t.Left))
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
