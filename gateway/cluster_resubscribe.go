package gateway

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// After a cluster session moved to another owner, the resource
// subscriptions this gateway holds on it are made again there: the new
// owner's session knows nothing of them. Each is retried until the new
// owner takes it (its session may still be connecting, or the topology
// still settling), the session moves again, the subscription is dropped
// or the gateway closes. Once it holds, the clients subscribed to the
// URI are told the resource was updated: whatever changed while no owner
// held the subscription was never reported to them.

// resubscribeMaxInterval caps the pause between two attempts at one URI.
const resubscribeMaxInterval = 2 * time.Second

// resubscribe makes the subscriptions held on m again on its new owner.
func (g *Gateway) resubscribe(u *upstream, m *member) {
	cs := m.s.(*clusterSession)
	move := cs.moves.Add(1)
	u.subMu.Lock()
	var uris []string
	for uri, s := range u.subs {
		if s.m == m {
			uris = append(uris, uri)
		}
	}
	u.subMu.Unlock()
	if len(uris) == 0 {
		return
	}
	g.bg.Add(1)
	// Owned by the gateway (Close ends bgCtx and waits): exits once
	// every URI is settled or given up.
	go func() {
		defer g.bg.Done()
		for _, uri := range uris {
			if !g.resubscribeURI(u, m, move, uri) {
				return
			}
		}
	}()
}

// resubscribeURI subscribes uri again on m's owner, retrying with
// backoff. It reports false when the whole resubscription is over (a
// later move took over, or the gateway closes).
func (g *Gateway) resubscribeURI(u *upstream, m *member, move uint64, uri string) bool {
	cs := m.s.(*clusterSession)
	b := backoff.NewExponentialBackOff(backoff.WithMaxInterval(resubscribeMaxInterval), backoff.WithMaxElapsedTime(0))
	for {
		if cs.moves.Load() != move {
			return false
		}
		held, err := u.subscribeAgain(m, uri)
		switch {
		case !held:
			return true // dropped meanwhile: nothing to make again
		case err == nil:
			g.log.Info("gateway: subscribed again after a hand-over", "session", cs.Name(), "uri", uri)
			params := append(mcpserver.AppendURIMember([]byte{'{'}, uri), '}')
			g.fronts.resourceUpdated(u.name, uri, messages.AppendNotification(nil, messages.NotificationResourcesUpdated, params))
			return true
		}
		pause := b.NextBackOff()
		g.log.Warn("gateway: subscribing again after a hand-over failed; retrying", "session", cs.Name(), "uri", uri, "in", pause, "err", err)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-g.bgCtx.Done():
			t.Stop()
			return false
		}
	}
}

// subscribeAgain sends the subscription to uri on m's owner if the
// gateway still holds it there (held), under subMu so that a client's
// unsubscribe cannot pass it.
func (u *upstream) subscribeAgain(m *member, uri string) (held bool, err error) {
	u.subMu.Lock()
	defer u.subMu.Unlock()
	if s := u.subs[uri]; s == nil || s.m != m {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(u.g.bgCtx, u.g.cfg.ReadyWait+u.g.cfg.ClientRequestTimeout)
	defer cancel()
	return true, m.s.Subscribe(ctx, uri)
}
