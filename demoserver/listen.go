package demoserver

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/mcpengine/mcpengine/internal/mcpserver"

	"github.com/mcpengine/mcpengine/messages"
)

// subscriptions/listen (2026-07-28): the stateless era's one channel for
// notifications that answer no request. A listen is a slow request that
// stays open: it acknowledges its filter first, then carries the
// list_changed notifications of the notify tool and the resources/updated
// of the touch tool (those it opted in to, each with the listen's id in
// _meta), until the client cancels it or the session ends (no answer), or
// notify {kind: "listen_end"} ends every open listen gracefully (its
// result). Listens are the server's, not a session's: over Streamable
// HTTP each request has a session of its own, so a notify call reaches the
// listens of other POSTs.

// listener is one open listen.
type listener struct {
	s      *session
	ctx    context.Context // the request's: ends when the client cancels it
	id     messages.ID
	filter messages.SubscriptionFilter
	end    chan struct{} // closed to end the listen gracefully
}

// listenHub holds a server's open listens.
type listenHub struct {
	mu   sync.Mutex
	open map[*listener]struct{}
}

// admit queues the listen's acknowledgement and makes the listen findable
// in one step under h.mu: no notification reaches the listen before its
// acknowledgement, and every notification sent once the client can have
// seen the acknowledgement reaches it. (Sending the acknowledgement first
// and adding the listen after let a notify call that the client made on
// seeing the acknowledgement find no listen.)
func (h *listenHub) admit(l *listener, ack func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ack()
	if h.open == nil {
		h.open = make(map[*listener]struct{})
	}
	h.open[l] = struct{}{}
}

func (h *listenHub) remove(l *listener) {
	h.mu.Lock()
	delete(h.open, l)
	h.mu.Unlock()
}

// each calls fn for every open listen that wants it, and returns how many.
func (h *listenHub) each(want func(*messages.SubscriptionFilter) bool, fn func(*listener)) int {
	h.mu.Lock()
	ls := make([]*listener, 0, len(h.open))
	for l := range h.open {
		// A listen the client cancelled is skipped at once, although its
		// handler may not have removed it yet.
		if l.ctx.Err() == nil && want(&l.filter) {
			ls = append(ls, l)
		}
	}
	h.mu.Unlock()
	for _, l := range ls {
		fn(l)
	}
	return len(ls)
}

// endAll ends every open listen gracefully.
func (h *listenHub) endAll() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for l := range h.open {
		delete(h.open, l)
		if l.ctx.Err() != nil {
			continue // cancelled by the client: it gets no answer
		}
		close(l.end)
		n++
	}
	return n
}

// send sends a notification on the listen: members are those besides
// _meta ("" for none).
func (l *listener) send(method string, members []byte) {
	var p [256]byte
	l.s.notify(method, mcpserver.AppendListenParams(p[:0], l.id, members))
}

// handleListen serves subscriptions/listen (modern requests only).
func handleListen(r *request, buf []byte) ([]byte, *messages.WireError) {
	if !r.modern {
		return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found: " + r.method}
	}
	var p messages.ListenParams
	if len(r.params) == 0 || decodeParams(r.params, &p) != nil {
		return nil, invalidParams("subscriptions/listen needs notifications")
	}
	// The demo honors every kind it has: all list changes, any URI.
	ack := p.Notifications
	ack.ResourceSubscriptions = slices.Clone(ack.ResourceSubscriptions)
	l := &listener{s: r.s, ctx: r.ctx, id: r.id, filter: ack, end: make(chan struct{})}
	members, err := mcpserver.AppendListenAck(nil, &ack)
	if err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}
	}
	hub := &r.s.srv.listens
	hub.admit(l, func() { l.send(messages.NotificationSubscriptionsAcknowledged, members) })
	select {
	case <-r.ctx.Done():
		hub.remove(l)
		return buf, errNoResponse
	case <-l.end:
	}
	buf = append(buf, `{"resultType":"complete",`...)
	return append(mcpserver.AppendSubscriptionMeta(buf, l.id), '}'), nil
}

// notifyListens sends a list_changed to the listens that asked for it.
func (srv *Server) notifyListens(method string) int {
	return srv.listens.each(func(f *messages.SubscriptionFilter) bool { return mcpserver.ListenWants(f, method, "") },
		func(l *listener) { l.send(method, nil) })
}

// touchListens sends resources/updated for uri to the listens subscribed
// to it.
func (srv *Server) touchListens(uri string) int {
	var m [256]byte
	members := mcpserver.AppendURIMember(m[:0], uri)
	return srv.listens.each(func(f *messages.SubscriptionFilter) bool {
		return mcpserver.ListenWants(f, messages.NotificationResourcesUpdated, uri)
	}, func(l *listener) { l.send(messages.NotificationResourcesUpdated, members) })
}

// listenMarker finds the notifications of a listen without decoding others.
var listenMarker = []byte(`"` + messages.MetaSubscriptionID + `"`)

func isListenNotification(params messages.RawMessage) bool {
	return bytes.Contains(params, listenMarker)
}

// listenStreamLocked returns the SSE answer of the listen a notification
// names (Streamable HTTP: the listen's POST), or nil.
func (c *httpConn) listenStreamLocked(params messages.RawMessage) *stream {
	var p struct {
		Meta messages.SubscriptionMeta `json:"_meta"`
	}
	if decodeJSON(params, &p) != nil || p.Meta.SubscriptionID == nil {
		return nil
	}
	return c.waiting[*p.Meta.SubscriptionID]
}
