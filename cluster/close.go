package cluster

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
)

// Close leaves the cluster gracefully. It stops answering the
// automanaged provider's polls (the others drop it at their next one),
// hands its sessions over (stops their grains, closing the sessions, and
// activates each on the member that owns it once this one is gone, which
// connects it again), then runs protoactor's graceful shutdown (gossip
// says it left, the provider deregisters, the remote closes), which
// waits about 2 s for ownership to move, and closes the member's engine.
// Calls the sessions were running fail with mcpengine.ErrConnectionLost;
// requests that reach this member while it leaves are answered "moved"
// and wait, resent, until the caller's topology names the new owner.
// If ctx ends first Close returns ctx.Err() and the shutdown completes
// in the background.
func (m *Member) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.closed = true
	m.mu.Unlock()
	m.sessions.leaving.Store(true)

	done := make(chan error, 1)
	// Owned by Close: ends when protoactor's shutdown and the engine's
	// close return.
	go func() {
		if m.health.health != nil {
			_ = m.health.health.Close()
		}
		m.handOver(ctx)
		m.cluster.Shutdown(true)
		m.system.EventStream.Unsubscribe(m.topologySub)
		m.system.EventStream.Unsubscribe(m.callsSub)
		m.metrics.stop()
		cctx, cancel := context.WithTimeout(context.Background(), closeSessionTimeout)
		defer cancel()
		err := m.sessions.close(cctx)
		m.serving.Wait()
		m.log.Info("cluster member left", "address", m.system.Address())
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// handOver stops the session grains of this member and activates each on
// its owner among the other members.
func (m *Member) handOver(ctx context.Context) {
	owned := m.sessions.ownedMap()
	if len(owned) == 0 {
		return
	}
	futures := make([]*actor.Future, 0, len(owned))
	for _, pid := range owned {
		futures = append(futures, m.system.Root.PoisonFuture(pid))
	}
	for _, f := range futures {
		_ = f.Wait()
	}
	m.mu.Lock()
	var others []*protocluster.Member
	for _, p := range m.topology {
		if p.Id != m.system.ID {
			others = append(others, p)
		}
	}
	m.mu.Unlock()
	if len(others) == 0 {
		return
	}
	rdv := protocluster.NewRendezvous()
	rdv.UpdateMembers(others)
	activations := make([]*actor.Future, 0, len(owned))
	for id := range owned {
		ci := protocluster.NewClusterIdentity(id, SessionKind)
		owner := rdv.GetByClusterIdentity(ci)
		if owner == "" {
			continue
		}
		activations = append(activations, m.system.Root.RequestFuture(
			actor.NewPID(owner, disthash.PartitionActivatorActorName),
			&protocluster.ActivationRequest{ClusterIdentity: ci}, handOverTimeout(ctx)))
	}
	m.metrics.moved(len(activations))
	for _, f := range activations {
		_ = f.Wait()
	}
	m.log.Info("sessions handed over", "sessions", len(owned), "members", len(others))
}

func handOverTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return 5 * time.Second
}
