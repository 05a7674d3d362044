package cluster

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/cluster/clusterpb"
	"github.com/mcpengine/mcpengine/messages"
)

// A session's resource subscriptions are shared by the members that use
// it (several gateways): the grain subscribes upstream for the first
// member and unsubscribes after the last, so that one member's
// unsubscribe does not end another's updates. Members are told apart by
// their remote address.

// sharedSubscription handles a resources/subscribe or unsubscribe call
// of sender: it answers at once and reports true when the upstream
// subscription stays as it is, and reports false when the call must go
// upstream (the first subscriber, or the last one leaving).
func (g *sessionGrain) sharedSubscription(sender *actor.PID, m *clusterpb.SessionCall) (answered bool) {
	var p struct {
		URI string `json:"uri"`
	}
	if m.Notify || messages.Unmarshal(m.Params, &p) != nil {
		return false
	}
	set := g.subscribers[p.URI]
	switch m.Method {
	case messages.MethodResourcesSubscribe:
		if set == nil {
			set = map[string]bool{}
			g.subscribers[p.URI] = set
		}
		first := len(set) == 0
		set[sender.Address] = true
		if first {
			return false
		}
	case messages.MethodResourcesUnsubscribe:
		if !set[sender.Address] {
			break
		}
		delete(set, sender.Address)
		if len(set) == 0 {
			delete(g.subscribers, p.URI)
			return false
		}
	default:
		return false
	}
	g.host.m.system.Root.Send(sender, &clusterpb.SessionReply{Result: []byte(`{}`)})
	return true
}

// subscribeFailed forgets the subscriber of a subscription the server
// refused.
func (g *sessionGrain) subscribeFailed(c *grainCall) {
	if set := g.subscribers[c.subscribed]; set != nil {
		delete(set, c.sender.Address)
		if len(set) == 0 {
			delete(g.subscribers, c.subscribed)
		}
	}
}
