package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"google.golang.org/protobuf/proto"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
	"github.com/mcpengine/mcpengine/messages"
)

// RemoteSession reaches a named session wherever the cluster placed it.
// It holds no state of its own: any number of them, on any members, name
// the same session. Safe for concurrent use.
type RemoteSession struct {
	m        *Member
	identity string
}

// Session returns the session called name of server (a key of
// Config.Servers). Nothing is sent until the first request, which
// activates the session on its owner if it is not live.
func (m *Member) Session(server, name string) *RemoteSession {
	return &RemoteSession{m: m, identity: SessionIdentity(server, name)}
}

// Identity is the session's cluster identity.
func (s *RemoteSession) Identity() string { return s.identity }

// Call sends a raw JSON-RPC request to the session on its owner and
// returns the raw result. Errors arrive typed: a JSON-RPC error as
// *mcpengine.RPCError, a call whose owner (or its connection) died while
// it ran as *mcpengine.ConnectionLostError (mcpengine.ErrConnectionLost;
// not safe to retry), ctx's deadline as *mcpengine.TimeoutError, other
// engine errors as *RemoteError. Without a deadline on ctx the call is
// bounded by Config.CallTimeout.
func (s *RemoteSession) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return s.CallWith(ctx, method, params, CallOptions{})
}

// CallOptions are what a call may ask for beyond its result.
type CallOptions struct {
	// Progress receives the params of the server's progress
	// notifications for the call, before the call returns; the owner
	// puts a token of its own on the request. nil asks for none.
	Progress func(params json.RawMessage)
	// ServesRequests says this member answers (Config.ServerRequests)
	// the sampling, elicitation and roots requests the server makes
	// while the call runs.
	ServesRequests bool
}

// CallWith is Call with options. When ctx ends before the answer, the
// owner cancels the request (the server gets notifications/cancelled).
func (s *RemoteSession) CallWith(ctx context.Context, method string, params json.RawMessage, o CallOptions) (json.RawMessage, error) {
	ctx, cancel := s.m.bounded(ctx)
	defer cancel()
	msg := &clusterpb.SessionCall{Method: method, Params: params, Progress: o.Progress != nil,
		ServesRequests: o.ServesRequests, CallRef: s.m.nextCallRef()}
	if d, ok := ctx.Deadline(); ok {
		msg.TimeoutMs = max(1, time.Until(d).Milliseconds())
	}
	var progress func([]byte)
	if o.Progress != nil {
		progress = func(p []byte) { o.Progress(p) }
	}
	reply, err := s.requestWith(ctx, method, msg, progress)
	if err != nil {
		return nil, err
	}
	return reply.Result, nil
}

// Notify sends a notification on the session (the client's progress on a
// server request, roots/list_changed, …).
func (s *RemoteSession) Notify(ctx context.Context, method string, params json.RawMessage) error {
	ctx, cancel := s.m.bounded(ctx)
	defer cancel()
	_, err := s.request(ctx, method, &clusterpb.SessionCall{Method: method, Params: params, Notify: true})
	return err
}

func (m *Member) nextCallRef() string {
	return m.system.ID + "/" + strconv.FormatUint(m.callSeq.Add(1), 10)
}

// CallTool calls tool name with args (anything that encodes to a JSON
// object; nil for none).
func (s *RemoteSession) CallTool(ctx context.Context, name string, args any) (*messages.CallToolResult, error) {
	params, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	raw, err := s.Call(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	var res messages.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Ensure activates the session on its owner and waits until it is ready.
func (s *RemoteSession) Ensure(ctx context.Context) error {
	ctx, cancel := s.m.bounded(ctx)
	defer cancel()
	_, err := s.request(ctx, "ensure", &clusterpb.SessionEnsure{})
	return err
}

// Close closes the session on its owner; a later request opens it again.
func (s *RemoteSession) Close(ctx context.Context) error {
	ctx, cancel := s.m.bounded(ctx)
	defer cancel()
	_, err := s.request(ctx, "close", &clusterpb.SessionClose{})
	return err
}

// Owner is the address of the member that holds the session now (it
// activates the session there if it is not live).
func (s *RemoteSession) Owner(ctx context.Context) (string, error) {
	for {
		if pid := s.m.lookup(ctx, s.identity); pid != nil {
			return pid.Address, nil
		}
		if err := s.m.retryPause(ctx, "owner"); err != nil {
			return "", err
		}
	}
}

// Lookup retries: how long a request waits before asking for the owner
// again when there is none yet (no topology, the owner just died) or
// the grain it found was gone.
const (
	retryFirst = 10 * time.Millisecond
	retryMax   = 200 * time.Millisecond
)

// request sends msg to the session's grain until it is delivered, and
// returns the grain's reply.
func (s *RemoteSession) request(ctx context.Context, method string, msg proto.Message) (*clusterpb.SessionReply, error) {
	return s.requestWith(ctx, method, msg, nil)
}

func (s *RemoteSession) requestWith(ctx context.Context, method string, msg proto.Message, progress func([]byte)) (*clusterpb.SessionReply, error) {
	pause := retryFirst
	for {
		if s.m.isClosed() {
			return nil, ErrClosed
		}
		if pid := s.m.lookup(ctx, s.identity); pid != nil {
			o, err := s.m.send(ctx, method, pid, msg, progress)
			if err != nil {
				return nil, err
			}
			// A call counts once it reached a session's grain: lost
			// with its owner or answered, not resent.
			if _, isCall := msg.(*clusterpb.SessionCall); isCall && !o.notDelivered &&
				(o.lost != "" || o.reply.Error == nil || o.reply.Error.Kind != kindMoved) {
				s.m.metrics.called(pid.Address == s.m.system.Address())
			}
			switch {
			case o.lost != "":
				s.m.forgetPID(s.identity)
				return nil, ownerLost(o.lost)
			case o.notDelivered:
				s.m.forgetPID(s.identity)
			case o.reply.Error != nil && o.reply.Error.Kind == kindMoved:
				s.m.forgetPID(s.identity)
			case o.reply.Error != nil:
				return nil, decodeError(method, o.reply.Error)
			default:
				return o.reply, nil
			}
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctxError(ctx, method)
		}
		pause = min(2*pause, retryMax)
	}
}

// send delivers msg to pid through a callActor and waits for the outcome.
func (m *Member) send(ctx context.Context, method string, pid *actor.PID, msg proto.Message, progress func([]byte)) (outcome, error) {
	out := make(chan outcome, 1)
	ca := m.system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return &callActor{target: pid, msg: msg, out: out, watch: m.calls, progress: progress, m: m}
	}))
	select {
	case o := <-out:
		return o, nil
	case <-ctx.Done():
		if c, ok := msg.(*clusterpb.SessionCall); ok && c.CallRef != "" {
			// The owner cancels the request upstream; the reply it may
			// still send goes to a stopped actor.
			m.system.Root.Send(pid, &clusterpb.SessionCancel{CallRef: c.CallRef})
		}
		m.system.Root.Stop(ca)
		return outcome{}, ctxError(ctx, method)
	}
}

func ctxError(ctx context.Context, method string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &mcpengine.TimeoutError{Method: method, CallerDeadline: true}
	}
	return ctx.Err()
}

// retryPause waits a lookup retry, or returns ctx's error.
func (m *Member) retryPause(ctx context.Context, method string) error {
	t := time.NewTimer(retryMax)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctxError(ctx, method)
	}
}

// activationTimeout bounds one question to an owner's activator. An
// activation only spawns the grain (it connects on its own), so a longer
// silence means the owner is gone and the topology will say so.
const activationTimeout = time.Second

// lookup is the grain of identity: the cached PID, else what the owner's
// activator answers (which activates the grain there). It asks as
// protoactor's disthash lookup does (the owner by rendezvous hashing over
// the topology, an ActivationRequest to its partition activator), but
// within ctx and activationTimeout: disthash waits 5 s on an owner that
// died before the topology dropped it. nil while no member offers
// sessions or the owner does not answer.
func (m *Member) lookup(ctx context.Context, identity string) *actor.PID {
	if pid, ok := m.cluster.PidCache.Get(identity, SessionKind); ok && pid != nil {
		return pid
	}
	m.mu.Lock()
	rdv := m.rdv
	m.mu.Unlock()
	if rdv == nil {
		return nil
	}
	ci := protocluster.NewClusterIdentity(identity, SessionKind)
	owner := rdv.GetByClusterIdentity(ci)
	if owner == "" {
		return nil
	}
	timeout := activationTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	if timeout <= 0 {
		return nil
	}
	res, err := m.system.Root.RequestFuture(actor.NewPID(owner, disthash.PartitionActivatorActorName),
		&protocluster.ActivationRequest{ClusterIdentity: ci}, timeout).Result()
	if err != nil {
		return nil
	}
	ar, ok := res.(*protocluster.ActivationResponse)
	if !ok || ar.Pid == nil {
		return nil
	}
	m.cluster.PidCache.Set(identity, SessionKind, ar.Pid)
	return ar.Pid
}

func (m *Member) forgetPID(identity string) {
	m.cluster.PidCache.Remove(identity, SessionKind)
}

// bounded gives ctx the member's call timeout if it has no deadline.
func (m *Member) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, m.cfg.callTimeout())
}

// OwnedSessions asks the member at address (its remote address, as
// Members lists it) which sessions it holds now.
func (m *Member) OwnedSessions(ctx context.Context, address string) ([]string, error) {
	ctx, cancel := m.bounded(ctx)
	defer cancel()
	f := m.system.Root.RequestFuture(actor.NewPID(address, registryName), &clusterpb.OwnedSessionsQuery{}, time.Until(deadlineOf(ctx)))
	res, err := f.Result()
	if err != nil {
		return nil, err
	}
	owned, ok := res.(*clusterpb.OwnedSessions)
	if !ok {
		return nil, errors.New("cluster: unexpected answer to OwnedSessionsQuery")
	}
	return owned.Identities, nil
}

// CallsInFlight is how many calls the sessions this member holds are
// running now.
func (m *Member) CallsInFlight() int64 { return m.sessions.calls.Load() }

// LocalSessions lists the sessions this member holds now.
func (m *Member) LocalSessions() []string { return m.sessions.ownedIdentities() }

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
