package actors

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
)

// subscriptions/listen (2026-07-28): one long-lived request per session
// whose answer is the stream of notifications its filter asks for. It is
// open only while the embedder asked for something (a notification
// handler, for the list changes the server declares; resource
// subscriptions), re-opened with the new filter when that changes, after
// every reconnect, and with backoff after a stream that dropped on a live
// connection. Its result is a graceful end: not re-opened until the next
// connection or a change of the filter. The request has no deadline (the
// sweep skips it) and costs no goroutine: on stdio it is one entry of the
// pending map, read by the connection's reader like any answer.

// noTimeout as the Timeout of one of the actor's own calls: the request
// has no deadline. A caller's Timeout (WithTimeout) never means that.
const noTimeout time.Duration = math.MinInt64

// noDeadline reports whether c is the listen, which has no deadline.
func (c *Call) noDeadline() bool { return c.Timeout == noTimeout && c.onDone != nil }

// listenRetry is sent by the listen's backoff timer. No reply.
type listenRetry struct{ gen uint64 }

// refreshListen is sent when the embedder's interest changed (a
// notification handler added or removed). No reply.
type refreshListen struct{}

// listenShared is the listen's state readable from any goroutine.
type listenShared struct {
	mu      sync.Mutex
	status  mcpstate.ListenStatus
	changed chan struct{} // closed and replaced on every change
}

// listenOf returns the session's listenShared, made on first use: a
// session that never listens (every handshake-era one, and a 2026-07-28
// one nobody asked to listen) carries none.
func (sh *Shared) listenOf() *listenShared {
	if l := sh.listen.Load(); l != nil {
		return l
	}
	if l := (&listenShared{}); sh.listen.CompareAndSwap(nil, l) {
		return l
	}
	return sh.listen.Load()
}

// ListenStatus returns the listen stream's current status and a channel
// closed at its next change.
func (sh *Shared) ListenStatus() (mcpstate.ListenStatus, <-chan struct{}) {
	l := sh.listenOf()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.status, l.changed
}

func (sh *Shared) setListen(fn func(*mcpstate.ListenStatus)) {
	l := sh.listenOf()
	l.mu.Lock()
	fn(&l.status)
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// listenState is the actor's side of the listen.
type listenState struct {
	call     *Call
	want     messages.SubscriptionFilter
	ended    bool // ended gracefully or refused on this connection: wait for a change
	failures int  // drops in a row, for the backoff
	gen      uint64
	timer    *time.Timer
}

// listenWanted is the filter the embedder's interest calls for, empty
// when it asked for nothing.
func (a *sessionActor) listenWanted(neg *Negotiated) messages.SubscriptionFilter {
	var f messages.SubscriptionFilter
	if a.sh.watchers.hasNotify.Load() {
		caps := neg.Capabilities
		f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
		f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
		f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	}
	if len(a.sh.actorOnly.subscriptions) > 0 {
		f.ResourceSubscriptions = make([]string, 0, len(a.sh.actorOnly.subscriptions))
		for uri := range a.sh.actorOnly.subscriptions {
			f.ResourceSubscriptions = append(f.ResourceSubscriptions, uri)
		}
		slices.Sort(f.ResourceSubscriptions)
	}
	return f
}

func sameFilter(a, b *messages.SubscriptionFilter) bool {
	return a.ToolsListChanged == b.ToolsListChanged && a.PromptsListChanged == b.PromptsListChanged &&
		a.ResourcesListChanged == b.ResourcesListChanged && slices.Equal(a.ResourceSubscriptions, b.ResourceSubscriptions)
}

// refreshListen opens, replaces or closes the listen so that it matches
// what the embedder asks for. A no-op outside a ready 2026-07-28 session.
func (a *sessionActor) refreshListen() {
	neg := a.sh.facts.negotiated.Load()
	if a.state != mcpstate.StateReady || a.conn == nil || neg == nil || !neg.Modern() {
		return
	}
	want := a.listenWanted(neg)
	if a.listen == nil {
		if want.Empty() { // never listened here, nothing asked for
			if a.sh.listen.Load() != nil { // a status a panicked instance left
				a.sh.setListen(func(s *mcpstate.ListenStatus) { *s = mcpstate.ListenStatus{Opened: s.Opened, Drops: s.Drops} })
			}
			return
		}
		a.listen = &listenState{}
	}
	l := a.listen
	if !sameFilter(&want, &l.want) {
		l.ended, l.failures = false, 0
		a.stopListenTimer()
	}
	if l.call != nil && sameFilter(&want, &l.want) {
		return
	}
	a.closeListen()
	l.want = want
	if want.Empty() {
		if a.sh.listen.Load() != nil { // a session that never listened has nothing to reset
			a.sh.setListen(func(s *mcpstate.ListenStatus) { *s = mcpstate.ListenStatus{Opened: s.Opened, Drops: s.Drops} })
		}
		return
	}
	if l.ended || l.timer != nil {
		return // the server ended it, or a retry is due
	}
	a.openListen()
}

func (a *sessionActor) openListen() {
	l := a.listen
	raw, err := messages.Marshal(&messages.ListenParams{Notifications: l.want})
	if err != nil {
		return
	}
	c := NewCall(messages.MethodSubscriptionsListen, raw)
	c.Timeout = noTimeout
	c.onDone = func(a *sessionActor, _ messages.RawMessage, err error) { a.listenDone(c, err) }
	l.call = c
	want := l.want
	a.sh.setListen(func(s *mcpstate.ListenStatus) {
		*s = mcpstate.ListenStatus{Phase: mcpstate.ListenOpening, Requested: want, Opened: s.Opened + 1, Drops: s.Drops}
	})
	a.transmit(c)
}

// closeListen forgets the open listen and tells the server (over
// Streamable HTTP the cancellation closes the request's stream).
func (a *sessionActor) closeListen() {
	if a.listen == nil || a.listen.call == nil {
		return
	}
	c := a.listen.call
	a.listen.call = nil
	if c.id != 0 && a.pending.get(c.id) == c {
		a.forget(c.id)
		if a.conn != nil {
			a.sendCancelled(c.id, errListenReplaced)
		}
	}
	c.finish(a, nil, errListenReplaced)
}

var errListenReplaced = errors.New("mcpengine: listen replaced or no longer wanted")

// listenDone is the listen request's completion.
func (a *sessionActor) listenDone(c *Call, err error) {
	l := a.listen
	if l == nil || l.call != c {
		return // replaced
	}
	l.call = nil
	var wire *messages.WireError
	switch {
	case err == nil:
		l.ended = true
		a.sh.setListen(func(s *mcpstate.ListenStatus) { s.Phase, s.Err = mcpstate.ListenEnded, nil })
	case errors.As(err, &wire) && wire.Code != transport.CodeRequestFailed:
		// The server refused it (a transport's failure of the one
		// request, CodeRequestFailed, is a drop).
		l.ended = true
		a.sh.setListen(func(s *mcpstate.ListenStatus) { s.Phase, s.Err = mcpstate.ListenFailed, err })
	default:
		a.sh.setListen(func(s *mcpstate.ListenStatus) { s.Phase, s.Err, s.Drops = mcpstate.ListenDropped, err, s.Drops+1 })
		var lost *mcperr.ConnectionLostError
		var closed *mcperr.ClosedError
		if errors.As(err, &lost) || errors.As(err, &closed) || a.state != mcpstate.StateReady {
			return // re-opened when ready again
		}
		l.failures++
		delay := supervisor.Delay(a.sh.cfg.Backoff, l.failures-1, rand.Float64())
		l.gen++
		gen, sched, self := l.gen, a.sh.sched, a.self
		// time.AfterFunc starts no goroutine until it fires; it then only
		// posts a message.
		l.timer = time.AfterFunc(delay, func() { sched.post(self, &listenRetry{gen: gen}, onWorker) })
	}
}

func (a *sessionActor) onListenRetry(m *listenRetry) {
	if a.listen == nil || m.gen != a.listen.gen || a.listen.timer == nil {
		return
	}
	a.listen.timer = nil
	a.refreshListen()
}

func (a *sessionActor) stopListenTimer() {
	if a.listen != nil && a.listen.timer != nil {
		a.listen.timer.Stop()
		a.listen.timer = nil
		a.listen.gen++
	}
}

// listenConnected starts a new connection's listen afresh.
func (a *sessionActor) listenConnected() {
	a.stopListenTimer()
	if a.listen != nil {
		a.listen.ended, a.listen.failures = false, 0
		a.listen.want = messages.SubscriptionFilter{}
	}
	a.refreshListen()
}

// onListenAck records the filter the server acknowledged for the open
// listen.
func (a *sessionActor) onListenAck(params messages.RawMessage) {
	if a.listen == nil || a.listen.call == nil {
		return
	}
	c := a.listen.call
	var p messages.SubscriptionsAcknowledgedParams
	if messages.Unmarshal(params, &p) != nil {
		return
	}
	if p.Meta != nil && p.Meta.SubscriptionID != nil {
		if id, ok := p.Meta.SubscriptionID.Int64(); !ok || id != c.id {
			return // another listen's (one we replaced)
		}
	}
	a.listen.failures = 0
	ack := p.Notifications
	a.sh.setListen(func(s *mcpstate.ListenStatus) { s.Phase, s.Acknowledged, s.Err = mcpstate.ListenOpen, &ack, nil })
}
