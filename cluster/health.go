package cluster

import (
	"context"
	"time"
)

// Health is a member's view of the cluster, for /healthz and logs.
type Health struct {
	// Member is this member's remote address, ID its actor system id.
	Member string `json:"member"`
	ID     string `json:"id"`
	// Members lists every member with the sessions it holds now.
	Members []MemberHealth `json:"members"`
	// TopologyChanges counts the topologies this member has seen (each a
	// rebalance); Activations the sessions activated on it, CallsInFlight
	// the calls its sessions are running; all since it started.
	TopologyChanges int   `json:"topology_changes"`
	Activations     int64 `json:"activations"`
	CallsInFlight   int64 `json:"calls_in_flight"`
}

// MemberHealth is one member in Health.
type MemberHealth struct {
	Address string `json:"address"`
	// Sessions is how many sessions it holds, -1 when it did not answer.
	Sessions int    `json:"sessions"`
	Error    string `json:"error,omitempty"`
}

// healthQueryTimeout bounds each member's answer in Health.
const healthQueryTimeout = 2 * time.Second

// Health asks every member the topology lists how many sessions it holds.
func (m *Member) Health(ctx context.Context) Health {
	m.mu.Lock()
	changes := m.topologyChanges
	m.mu.Unlock()
	h := Health{Member: m.Address(), ID: m.ID(), TopologyChanges: changes,
		Activations: m.sessions.activations.Load(), CallsInFlight: m.CallsInFlight()}
	for _, info := range m.Members() {
		qctx, cancel := context.WithTimeout(ctx, healthQueryTimeout)
		ids, err := m.OwnedSessions(qctx, info.Address)
		cancel()
		mh := MemberHealth{Address: info.Address, Sessions: len(ids)}
		if err != nil {
			mh.Sessions, mh.Error = -1, err.Error()
		}
		h.Members = append(h.Members, mh)
	}
	return h
}
