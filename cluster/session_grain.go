package cluster

import (
	"context"
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
	// inflight are the callers of calls the session is running, by id.
	inflight map[uint64]*actor.PID
	nextID   uint64
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
	case *clusterpb.SessionCall, *clusterpb.SessionEnsure, *clusterpb.SessionClose:
		g.request(ctx, ctx.Sender(), msg)
	case *callDone:
		if sender, ok := g.inflight[msg.id]; ok {
			delete(g.inflight, msg.id)
			ctx.Send(sender, msg.reply)
		}
	case *actor.Stopping:
		g.stopping(ctx)
	}
}

func (g *sessionGrain) init(ctx actor.Context, identity string) {
	g.identity, g.self = identity, ctx.Self()
	g.inflight = map[uint64]*actor.PID{}
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
		s, err := g.host.engine.Connect(gctx, mcpengine.SessionConfig{Name: identity, Server: sc})
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
	g.nextID++
	id := g.nextID
	g.inflight[id] = sender
	var opts []mcpengine.CallOption
	if m.TimeoutMs > 0 {
		opts = append(opts, mcpengine.WithTimeout(time.Duration(m.TimeoutMs)*time.Millisecond))
	}
	var params any
	if len(m.Params) > 0 {
		params = messages.RawMessage(m.Params)
	}
	g.host.wg.Add(1)
	g.host.calls.Add(1)
	// One call: exits when the session answers it, fails it, or is
	// closed because the grain stopped.
	go func(sess *mcpengine.Session, gctx context.Context, root *actor.RootContext, self *actor.PID) {
		defer g.host.wg.Done()
		defer g.host.calls.Add(-1)
		res, err := sess.Call(gctx, m.Method, params, opts...)
		reply := &clusterpb.SessionReply{Result: res}
		if err != nil {
			reply = &clusterpb.SessionReply{Error: encodeError(err)}
		}
		root.Send(self, &callDone{id: id, reply: reply})
	}(g.sess, g.ctx, g.host.m.system.Root, g.self)
}

// stopping answers everyone the grain still owes an answer (a caller
// whose call the session runs: its fate is unknown; a caller still
// waiting for the session: not sent, try the new owner) and ends the
// session.
func (g *sessionGrain) stopping(ctx actor.Context) {
	if g.cancel == nil {
		return
	}
	for id, sender := range g.inflight {
		delete(g.inflight, id)
		ctx.Send(sender, &clusterpb.SessionReply{Error: &clusterpb.CallError{
			Kind: errorType(mcpengine.ErrConnectionLost), Message: "cluster: the session's owner stopped it while the call ran"}})
	}
	for _, w := range g.waiting {
		ctx.Send(w.sender, &clusterpb.SessionReply{Error: &clusterpb.CallError{Kind: kindMoved, SafeToRetry: true}})
	}
	g.waiting = nil
	g.host.forget(g.identity, g.self)
	g.cancel()
}
