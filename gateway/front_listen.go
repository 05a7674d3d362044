package gateway

import (
	"context"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// subscriptions/listen on the aggregated endpoint (2026-07-28): the
// stateless era's channel for the notifications the handshake era sends
// on the GET stream. A listen is a request of its own session whose SSE
// answer stays open: the acknowledgement of its filter first, then the
// servers' list changes and the resources/updated of the URIs it
// subscribed to (one upstream subscription per server and URI, shared
// with every client, as resources/subscribe does), each naming the
// listen. It ends with its request: the client cancels it or goes away;
// its subscriptions are dropped with its session.

// frontListen is one open listen.
type frontListen struct {
	fs     *frontSession
	out    *frontStream
	id     messages.ID
	filter messages.SubscriptionFilter // as acknowledged
}

// send pushes a notification on the listen's stream: members are those
// besides _meta (nil for none).
func (l *frontListen) send(method string, members []byte) {
	l.out.push(messages.AppendNotification(nil, method, mcpserver.AppendListenParams(nil, l.id, members)))
}

// listen serves subscriptions/listen until the request ends.
func (g *Gateway) listen(ctx context.Context, fs *frontSession, m *messages.Message, out *frontStream) (messages.RawMessage, *messages.WireError) {
	if !fs.modern || out == nil {
		return nil, methodNotFound(m.Method)
	}
	var p messages.ListenParams
	if err := messages.Unmarshal(m.Params, &p); err != nil {
		return nil, invalidParams("subscriptions/listen needs notifications")
	}
	// Every list change is honored; a URI only once subscribed upstream.
	ack := p.Notifications
	ack.ResourceSubscriptions = nil
	for _, uri := range p.Notifications.ResourceSubscriptions {
		if werr := g.subscribeURI(ctx, fs, uri); werr != nil {
			g.log.Debug("gateway: a listen's subscription refused", "uri", uri, "err", werr.Message)
			continue
		}
		ack.ResourceSubscriptions = append(ack.ResourceSubscriptions, uri)
	}
	l := &frontListen{fs: fs, out: out, id: m.ID, filter: ack}
	members, err := mcpserver.AppendListenAck(nil, &ack)
	if err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}
	}
	if !g.fronts.addListen(l, func() { l.send(messages.NotificationSubscriptionsAcknowledged, members) }) {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "the gateway is shutting down"}
	}
	defer g.fronts.removeListen(l)
	<-ctx.Done()
	return nil, errNoAnswer
}
