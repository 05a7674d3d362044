package cluster

import (
	"context"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// meterName identifies the cluster's instruments.
const meterName = "github.com/mcpengine/mcpengine/cluster"

// The cluster's metric names, in the engine's mcpengine.* namespace.
const (
	// MetricMembers is the members in this member's topology (gauge).
	MetricMembers = "mcpengine.cluster.members"
	// MetricSessions is the sessions this member holds now (gauge).
	MetricSessions = "mcpengine.cluster.sessions"
	// MetricActivations counts sessions activated on this member, by
	// AttrActivation.
	MetricActivations = "mcpengine.cluster.session.activations"
	// MetricMovedAway counts sessions this member stopped and activated on
	// another member because it was leaving.
	MetricMovedAway = "mcpengine.cluster.session.moved_away"
	// MetricCalls counts calls made through this member's RemoteSessions,
	// by AttrOwner.
	MetricCalls = "mcpengine.cluster.calls"
)

// Metric attributes and their values.
const (
	// AttrActivation says why a session was activated here:
	// ActivationPlaced (its first activation, or again after it closed),
	// ActivationOwnerLeft (its owner under the previous topology left it:
	// died or left gracefully) or ActivationHandover (a leaving owner
	// handed it over before this member's topology dropped that owner).
	AttrActivation      = "mcpengine.cluster.activation"
	ActivationPlaced    = "placed"
	ActivationOwnerLeft = "owner_left"
	ActivationHandover  = "handover"
	// AttrOwner says where the session of a call lived: OwnerLocal (this
	// member) or OwnerRemote (another member).
	AttrOwner   = "mcpengine.cluster.owner"
	OwnerLocal  = "local"
	OwnerRemote = "remote"
)

// metrics are a member's instruments. A nil *metrics records nothing:
// a member without a meter provider pays one nil check per event.
type metrics struct {
	activations metric.Int64Counter
	movedAway   metric.Int64Counter
	calls       metric.Int64Counter
	reg         metric.Registration

	// The attribute sets, built once so that recording allocates nothing
	// for them.
	byReason     map[string]metric.AddOption
	local, other metric.AddOption
}

// newMetrics registers m's instruments with the meter provider of
// m.cfg.Engine.Telemetry, or returns nil when it has none.
func newMetrics(m *Member) (*metrics, error) {
	if m.cfg.Engine.Telemetry.Meter == nil {
		return nil, nil
	}
	meter := m.cfg.Engine.Telemetry.Meter.Meter(meterName)
	t := &metrics{
		byReason: map[string]metric.AddOption{},
		local:    metric.WithAttributeSet(attribute.NewSet(attribute.String(AttrOwner, OwnerLocal))),
		other:    metric.WithAttributeSet(attribute.NewSet(attribute.String(AttrOwner, OwnerRemote))),
	}
	for _, r := range []string{ActivationPlaced, ActivationOwnerLeft, ActivationHandover} {
		t.byReason[r] = metric.WithAttributeSet(attribute.NewSet(attribute.String(AttrActivation, r)))
	}
	var err error
	if t.activations, err = meter.Int64Counter(MetricActivations, metric.WithUnit("{session}"),
		metric.WithDescription("Sessions activated on this member, by why.")); err != nil {
		return nil, err
	}
	if t.movedAway, err = meter.Int64Counter(MetricMovedAway, metric.WithUnit("{session}"),
		metric.WithDescription("Sessions this member handed to another member while leaving.")); err != nil {
		return nil, err
	}
	if t.calls, err = meter.Int64Counter(MetricCalls, metric.WithUnit("{call}"),
		metric.WithDescription("Calls through this member to sessions, by where the session lived.")); err != nil {
		return nil, err
	}
	members, err := meter.Int64ObservableGauge(MetricMembers, metric.WithUnit("{member}"),
		metric.WithDescription("Members in this member's topology, itself included."))
	if err != nil {
		return nil, err
	}
	sessions, err := meter.Int64ObservableGauge(MetricSessions, metric.WithUnit("{session}"),
		metric.WithDescription("Sessions this member holds."))
	if err != nil {
		return nil, err
	}
	// Read at collection only: the topology copy and the owned table
	// are there already.
	t.reg, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(members, int64(len(m.Members())))
		o.ObserveInt64(sessions, int64(m.sessions.ownedCount()))
		return nil
	}, members, sessions)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (t *metrics) activated(reason string) {
	if t != nil {
		t.activations.Add(context.Background(), 1, t.byReason[reason])
	}
}

func (t *metrics) moved(n int) {
	if t != nil && n > 0 {
		t.movedAway.Add(context.Background(), int64(n))
	}
}

func (t *metrics) called(local bool) {
	if t == nil {
		return
	}
	if local {
		t.calls.Add(context.Background(), 1, t.local)
	} else {
		t.calls.Add(context.Background(), 1, t.other)
	}
}

// stop unregisters the gauges' callback (the member is gone).
func (t *metrics) stop() {
	if t != nil && t.reg != nil {
		_ = t.reg.Unregister()
	}
}

// activationReason classifies the activation of identity on this member
// from its topologies: owned here by the current one and by a member
// that left under the one before the last departure (owner_left), owned
// by another member by the current one (handover: only a leaving owner,
// or a member whose topology is ahead, activates it here then), else
// placed.
func (m *Member) activationReason(identity string) string {
	ci := protocluster.NewClusterIdentity(identity, SessionKind)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rdv != nil {
		if owner := m.rdv.GetByClusterIdentity(ci); owner != "" && owner != m.system.Address() {
			return ActivationHandover
		}
	}
	if m.beforeLeft != nil {
		if prev := m.beforeLeft.GetByClusterIdentity(ci); prev != "" && m.left[prev] {
			return ActivationOwnerLeft
		}
	}
	return ActivationPlaced
}
