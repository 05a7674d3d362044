package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
	"github.com/mcpengine/mcpengine/messages"
)

// ServerRequestHandler answers one request a session's server sent its
// client: method and params as the server sent them, the raw result or
// an error (a *messages.WireError crosses with its code, message and
// data).
type ServerRequestHandler func(ctx context.Context, identity, method string, params json.RawMessage) (json.RawMessage, error)

// serverRequestTimeout bounds a server request's trip to the member that
// answers it, when the server's own wait has no deadline.
const serverRequestTimeout = 2 * time.Minute

// serverAsked is posted by a session's server-request handler to its
// grain, which answers on target the actor to ask (nil and why if none).
type serverAsked struct {
	target chan<- requestTarget
}

type requestTarget struct {
	pid *actor.PID
	why string
}

// requestTarget picks who answers a server request: the caller of the
// latest call that serves requests, when every such call in flight came
// from one member (that member attributes it among its own clients);
// with calls of several members in flight it cannot be attributed and is
// refused rather than guessed; related to no call, a watcher
// (watcherForRequest).
func (g *sessionGrain) requestTarget() requestTarget {
	var latest *grainCall
	var latestID uint64
	for id, c := range g.inflight {
		if !c.servesRequests {
			continue
		}
		if latest != nil && latest.sender.Address != c.sender.Address {
			return requestTarget{why: "calls of several cluster members are in flight on this session"}
		}
		if latest == nil || id > latestID {
			latest, latestID = c, id
		}
	}
	if latest != nil {
		return requestTarget{pid: latest.sender}
	}
	if w := g.watcherForRequest(time.Now(), g.host.m.system.Address()); w != nil {
		return requestTarget{pid: w.pid}
	}
	return requestTarget{why: "no cluster member serves this session's requests"}
}

// watcherForRequest picks the watcher that answers a server request
// related to no call, among those whose lease holds (a lapsed one is
// likely a dead member's, which would leave the server waiting): the
// one on the member whose call serving requests came last (its clients
// are the ones at work on the session), else the one on this member,
// self (no hop, and alive), else the first by member address. nil if
// none.
func (g *sessionGrain) watcherForRequest(now time.Time, self string) *watcher {
	var best *watcher
	rank := func(w *watcher) int {
		switch {
		case g.lastServing != "" && w.pid.Address == g.lastServing:
			return 0
		case w.pid.Address == self:
			return 1
		}
		return 2
	}
	for _, w := range g.watchers {
		if now.Sub(w.renewed) > watchLease {
			continue
		}
		if best == nil || rank(w) < rank(best) || (rank(w) == rank(best) && w.pid.Address+"/"+w.pid.Id < best.pid.Address+"/"+best.pid.Id) {
			best = w
		}
	}
	return best
}

// sessionConfig is the engine session of a grain: the server's requests
// go to the member that answers them (requestTarget), unless the
// member's engine has handlers of its own. A session declares to its
// server only what its engine has a handler for, so the forwarding
// handlers are there only when the cluster answers such requests: this
// member does (Config.ServerRequests) or says that others do
// (Config.ForwardServerRequests).
func (g *sessionGrain) sessionConfig(identity string, sc mcpengine.ServerConfig, root *actor.RootContext, self *actor.PID) mcpengine.SessionConfig {
	mc := g.host.m.cfg
	ec := mc.Engine
	cfg := mcpengine.SessionConfig{Name: identity, Server: sc}
	if mc.ServerRequests == nil && !mc.ForwardServerRequests {
		return cfg
	}
	ask := func(ctx context.Context, method string, params any) (json.RawMessage, error) {
		return askMember(ctx, root, self, identity, method, params)
	}
	if ec.Sampling == nil {
		cfg.Sampling = func(ctx context.Context, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			var res messages.CreateMessageResult
			return &res, decodeInto(ask(ctx, messages.MethodSamplingCreateMessage, p))(&res)
		}
	}
	if ec.Elicitation == nil {
		cfg.Elicitation = func(ctx context.Context, p *messages.ElicitParams) (*messages.ElicitResult, error) {
			var res messages.ElicitResult
			return &res, decodeInto(ask(ctx, messages.MethodElicitationCreate, p))(&res)
		}
	}
	if ec.RootsHandler == nil && ec.Roots == nil {
		cfg.RootsHandler = func(ctx context.Context) ([]messages.Root, error) {
			var res messages.ListRootsResult
			if err := decodeInto(ask(ctx, messages.MethodRootsList, nil))(&res); err != nil {
				return nil, err
			}
			return res.Roots, nil
		}
	}
	return cfg
}

func decodeInto(raw json.RawMessage, err error) func(any) error {
	return func(v any) error {
		if err != nil {
			return err
		}
		return messages.Unmarshal(raw, v)
	}
}

// askMember sends a server request to the actor the grain picks and
// waits for its answer.
func askMember(ctx context.Context, root *actor.RootContext, self *actor.PID, identity, method string, params any) (json.RawMessage, error) {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = messages.Marshal(params); err != nil {
			return nil, err
		}
	}
	ch := make(chan requestTarget, 1)
	root.Send(self, &serverAsked{target: ch})
	var t requestTarget
	select {
	case t = <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if t.pid == nil {
		return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "cluster: cannot forward " + method + ": " + t.why}
	}
	timeout := serverRequestTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	res, err := root.RequestFuture(t.pid, &clusterpb.ServerRequest{Identity: identity, Method: method, Params: raw}, timeout).Result()
	if err != nil {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "cluster: " + method + " not answered: " + err.Error()}
	}
	reply, ok := res.(*clusterpb.ServerRequestReply)
	if !ok {
		return nil, &messages.WireError{Code: messages.CodeInternalError, Message: "cluster: " + method + " not answered"}
	}
	if e := reply.Error; e != nil {
		return nil, &messages.WireError{Code: int64(e.Code), Message: e.Message, Data: e.Data}
	}
	return reply.Result, nil
}

// serveRequest answers a server request sent to one of this member's
// actors (a callActor, a Watcher), on a goroutine of its own: the actor
// goes on receiving meanwhile.
func (m *Member) serveRequest(sender *actor.PID, req *clusterpb.ServerRequest) {
	if sender == nil {
		return
	}
	h := m.cfg.ServerRequests
	if h == nil {
		m.system.Root.Send(sender, &clusterpb.ServerRequestReply{Error: &clusterpb.CallError{
			Kind: kindRPC, Code: int32(messages.CodeMethodNotFound), Message: "cluster: this member answers no server requests"}})
		return
	}
	m.serving.Add(1)
	// One server request: exits when the handler returns, at the latest
	// after serverRequestTimeout.
	go func() {
		defer m.serving.Done()
		ctx, cancel := context.WithTimeout(context.Background(), serverRequestTimeout)
		defer cancel()
		res, err := h(ctx, req.Identity, req.Method, req.Params)
		reply := &clusterpb.ServerRequestReply{Result: res}
		if err != nil {
			reply = &clusterpb.ServerRequestReply{Error: wireToCallError(err)}
		}
		m.system.Root.Send(sender, reply)
	}()
}

func wireToCallError(err error) *clusterpb.CallError {
	var we *messages.WireError
	if errors.As(err, &we) {
		return &clusterpb.CallError{Kind: kindRPC, Code: int32(we.Code), Message: we.Message, Data: we.Data}
	}
	var rpc *mcpengine.RPCError
	if errors.As(err, &rpc) {
		return &clusterpb.CallError{Kind: kindRPC, Code: int32(rpc.Code), Message: rpc.Message, Data: rpc.Data}
	}
	return &clusterpb.CallError{Kind: kindRPC, Code: int32(messages.CodeInternalError), Message: strings.TrimSpace(err.Error())}
}
