package cluster

import (
	"context"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
	"github.com/mcpengine/mcpengine/messages"
)

// sessionGrain is the virtual actor of one session identity on the
// member that owns it. It opens the session when activated and serves
// SessionCall, SessionEnsure and SessionClose; only it touches its
// fields. Blocking work runs on goroutines that post back to it.
type sessionGrain struct {
	host     *sessionHost
	identity string
	self     *actor.PID

	// ctx ends when the grain stops: the session's owner goroutine closes
	// the session then, and calls still running end.
	ctx    context.Context
	cancel context.CancelFunc

	sess    *mcpengine.Session
	failed  error
	waiting []waiter
	// inflight are the calls the session is running, by id.
	inflight map[uint64]*grainCall
	nextID   uint64
	// byRef finds a call of inflight by the caller's call_ref, for
	// SessionCancel.
	byRef map[string]uint64
	// watchers get the session's notifications and state changes
	// (session_watch.go).
	watchers map[string]*watcher
	// subscribers are the members subscribed to each resource URI
	// (session_subscriptions.go).
	subscribers map[string]map[string]bool
	// lastServing is the address of the member whose call that serves
	// server requests came last: a request related to no call goes
	// there first (requestTarget).
	lastServing string
}

// grainCall is one call the session runs for a caller.
type grainCall struct {
	sender *actor.PID
	ref    string
	cancel context.CancelFunc
	// servesRequests: the caller answers the server's requests made while
	// the call runs.
	servesRequests bool
	// subscribed is the URI of a resources/subscribe call.
	subscribed string
}

// waiter is a request that came before the session was ready.
type waiter struct {
	sender *actor.PID
	msg    any
}

// sessionOpened is posted by the session's owner goroutine once Connect
// returned.
type sessionOpened struct {
	sess *mcpengine.Session
	err  error
}

// callDone is posted by a call's goroutine with the reply for its caller.
type callDone struct {
	id    uint64
	reply *clusterpb.SessionReply
}

// closeSessionTimeout bounds closing a session whose grain stopped.
const closeSessionTimeout = 10 * time.Second

func (g *sessionGrain) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *protocluster.ClusterInit:
		g.init(ctx, msg.Identity.Identity)
	case *sessionOpened:
		g.opened(ctx, msg)
	case *clusterpb.SessionCall, *clusterpb.SessionEnsure, *clusterpb.SessionClose, *clusterpb.SessionWatch:
		g.request(ctx, ctx.Sender(), msg)
	case *clusterpb.SessionCancel:
		g.cancelCall(msg.CallRef)
	case *callDone:
		if c, ok := g.inflight[msg.id]; ok {
			delete(g.inflight, msg.id)
			delete(g.byRef, c.ref)
			c.cancel()
			if c.subscribed != "" && msg.reply.Error != nil {
				g.subscribeFailed(c)
			}
			ctx.Send(c.sender, msg.reply)
		}
	case *sessionNotified:
		g.broadcast(ctx, &clusterpb.SessionEvent{Identity: g.identity, Method: msg.n.Method, Params: msg.n.Params})
	case *sessionStateChanged:
		g.broadcast(ctx, &clusterpb.SessionEvent{Identity: g.identity, Status: g.status()})
	case *serverAsked:
		msg.target <- g.requestTarget()
	case *actor.Stopping:
		g.stopping(ctx)
	}
}

func (g *sessionGrain) init(ctx actor.Context, identity string) {
	g.identity, g.self = identity, ctx.Self()
	g.inflight = map[uint64]*grainCall{}
	g.byRef = map[string]uint64{}
	g.watchers = map[string]*watcher{}
	g.subscribers = map[string]map[string]bool{}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	g.host.m.metrics.activated(g.host.m.activationReason(identity))
	prev, closed := g.host.register(identity, g.self)
	server, _, ok := splitIdentity(identity)
	sc, err := g.host.server(server)
	if !ok {
		err = ErrUnknownServer
	}
	if g.host.leaving.Load() {
		err = errLeaving
	}
	if err != nil {
		g.failed = err
		g.host.closedSession(identity, closed)
		// Not stopped here: the request that activated the grain may not
		// be in its mailbox yet, and one that found the grain stopped
		// would activate it again, and again. request answers it with
		// the error and then stops the grain; the next request activates
		// the identity anew (here with the server table fixed, or on the
		// new owner).
		return
	}
	g.host.m.log.Debug("session activated", "session", identity)
	g.host.wg.Add(1)
	// The session's owner: opens the session, posts it to the grain, and
	// closes it once the grain stops (g.ctx ends); it exits then.
	go func(gctx context.Context, root *actor.RootContext, self *actor.PID) {
		defer g.host.wg.Done()
		defer g.host.closedSession(identity, closed)
		if prev != nil {
			select {
			case <-prev:
			case <-gctx.Done():
				return
			}
		}
		s, err := g.host.engine.Connect(gctx, g.sessionConfig(identity, sc, root, self))
		if err == nil {
			// Both post to the grain, which passes them to its watchers.
			s.OnNotification(func(n mcpengine.Notification) { root.Send(self, &sessionNotified{n}) })
			s.WatchState(func(mcpengine.StateChange) { root.Send(self, &sessionStateChanged{}) })
		}
		root.Send(self, &sessionOpened{sess: s, err: err})
		if err != nil {
			return
		}
		<-gctx.Done()
		cctx, cancel := context.WithTimeout(context.Background(), closeSessionTimeout)
		defer cancel()
		_ = s.Close(cctx)
	}(g.ctx, g.host.m.system.Root, g.self)
}

func (g *sessionGrain) opened(ctx actor.Context, msg *sessionOpened) {
	if msg.err != nil {
		g.failed = msg.err
		g.host.m.log.Warn("session not opened", "session", g.identity, "err", msg.err)
	} else {
		g.sess = msg.sess
	}
	waiting := g.waiting
	g.waiting = nil
	// A failed grain stops once it answered a request (request); the
	// next request activates the identity again and retries.
	for _, w := range waiting {
		g.request(ctx, w.sender, w.msg)
	}
}

func (g *sessionGrain) request(ctx actor.Context, sender *actor.PID, msg any) {
	if sender == nil {
		return
	}
	if g.failed != nil {
		ctx.Send(sender, &clusterpb.SessionReply{Error: encodeError(g.failed)})
		// Every activation answers at least the request that caused it.
		ctx.Poison(g.self)
		return
	}
	if w, ok := msg.(*clusterpb.SessionWatch); ok {
		// Answered at once: a watcher learns the session is connecting,
		// and gets its state when it is open (a SessionEvent).
		g.watch(w)
		ctx.Send(sender, &clusterpb.SessionReply{Status: g.status()})
		return
	}
	if g.sess == nil {
		g.waiting = append(g.waiting, waiter{sender, msg})
		return
	}
	switch m := msg.(type) {
	case *clusterpb.SessionEnsure:
		ctx.Send(sender, &clusterpb.SessionReply{})
	case *clusterpb.SessionClose:
		ctx.Send(sender, &clusterpb.SessionReply{})
		ctx.Poison(g.self)
	case *clusterpb.SessionCall:
		g.call(sender, m)
	}
}

func (g *sessionGrain) call(sender *actor.PID, m *clusterpb.SessionCall) {
	if g.sharedSubscription(sender, m) {
		return
	}
	g.nextID++
	id := g.nextID
	cctx, cancel := context.WithCancel(g.ctx)
	gc := &grainCall{sender: sender, ref: m.CallRef, cancel: cancel, servesRequests: m.ServesRequests}
	if m.ServesRequests {
		g.lastServing = sender.Address
	}
	if m.Method == messages.MethodResourcesSubscribe && !m.Notify {
		var p struct {
			URI string `json:"uri"`
		}
		_ = messages.Unmarshal(m.Params, &p)
		gc.subscribed = p.URI
	}
	g.inflight[id] = gc
	if m.CallRef != "" {
		g.byRef[m.CallRef] = id
	}
	var opts []mcpengine.CallOption
	if m.TimeoutMs > 0 {
		opts = append(opts, mcpengine.WithTimeout(time.Duration(m.TimeoutMs)*time.Millisecond))
	}
	root := g.host.m.system.Root
	if m.Progress {
		// Sent from the session's progress dispatcher, before the call
		// returns: the caller gets them ahead of the reply (one remote
		// stream per member pair keeps the order).
		opts = append(opts, mcpengine.WithProgress(func(p messages.ProgressParams) {
			if raw, err := messages.Marshal(&p); err == nil {
				root.Send(sender, &clusterpb.SessionProgress{Params: raw})
			}
		}))
	}
	var params any
	if len(m.Params) > 0 {
		params = messages.RawMessage(m.Params)
	}
	g.host.wg.Add(1)
	g.host.calls.Add(1)
	// One call: exits when the session answers it, fails it, the caller
	// cancels it, or the session is closed because the grain stopped.
	go func(sess *mcpengine.Session, self *actor.PID) {
		defer g.host.wg.Done()
		defer g.host.calls.Add(-1)
		res, err := runCall(cctx, sess, m, params, opts)
		reply := &clusterpb.SessionReply{Result: res}
		if err != nil {
			reply = &clusterpb.SessionReply{Error: encodeError(err)}
		}
		root.Send(self, &callDone{id: id, reply: reply})
	}(g.sess, g.self)
}

// runCall sends one caller's message on the session. Subscriptions go
// through the engine's own calls, which renew them after a reconnect.
func runCall(ctx context.Context, sess *mcpengine.Session, m *clusterpb.SessionCall, params any, opts []mcpengine.CallOption) (messages.RawMessage, error) {
	if m.Notify {
		return nil, sess.Notify(ctx, m.Method, params)
	}
	switch m.Method {
	case messages.MethodResourcesSubscribe, messages.MethodResourcesUnsubscribe:
		var p struct {
			URI string `json:"uri"`
		}
		if err := messages.Unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		var err error
		if m.Method == messages.MethodResourcesSubscribe {
			err = sess.Subscribe(ctx, p.URI)
		} else {
			err = sess.Unsubscribe(ctx, p.URI)
		}
		return messages.RawMessage(`{}`), err
	}
	return sess.Call(ctx, m.Method, params, opts...)
}

// cancelCall cancels the call named ref: running, its ctx ends (the
// session sends notifications/cancelled); still waiting for the session,
// it is dropped unsent.
func (g *sessionGrain) cancelCall(ref string) {
	if id, ok := g.byRef[ref]; ok {
		g.inflight[id].cancel()
		return
	}
	g.waiting = slices.DeleteFunc(g.waiting, func(w waiter) bool {
		c, ok := w.msg.(*clusterpb.SessionCall)
		return ok && ref != "" && c.CallRef == ref
	})
}

// stopping answers everyone the grain still owes an answer (a caller
// whose call the session runs: its fate is unknown; a caller still
// waiting for the session: not sent, try the new owner) and ends the
// session.
func (g *sessionGrain) stopping(ctx actor.Context) {
	if g.cancel == nil {
		return
	}
	for id, c := range g.inflight {
		delete(g.inflight, id)
		ctx.Send(c.sender, &clusterpb.SessionReply{Error: &clusterpb.CallError{
			Kind: errorType(mcpengine.ErrConnectionLost), Message: "cluster: the session's owner stopped it while the call ran"}})
	}
	for _, w := range g.waiting {
		ctx.Send(w.sender, &clusterpb.SessionReply{Error: &clusterpb.CallError{Kind: kindMoved, SafeToRetry: true}})
	}
	g.waiting = nil
	g.host.forget(g.identity, g.self)
	g.cancel()
}
