package cluster

import (
	"context"
	"errors"
)

// ErrClosed is returned by Close after the first.
var ErrClosed = errors.New("cluster: member closed")

// Close leaves the cluster gracefully: the member's gossip says it left,
// the provider drops it, the actors it holds stop, and the remote closes.
// protoactor's graceful shutdown waits about 2 s for ownership to move
// (cluster.Shutdown), so Close takes at least that long. If ctx ends
// first Close returns ctx.Err() and the shutdown completes in the
// background.
func (m *Member) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.closed = true
	m.mu.Unlock()

	done := make(chan struct{})
	// Owned by Close: ends when protoactor's shutdown returns.
	go func() {
		defer close(done)
		m.cluster.Shutdown(true)
		m.system.EventStream.Unsubscribe(m.topologySub)
		if m.health.health != nil {
			// The provider closed its server already; a listener it never
			// served (a Close right after Start) is closed here.
			_ = m.health.health.Close()
		}
		m.log.Info("cluster member left", "address", m.system.Address())
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
