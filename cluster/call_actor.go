package cluster

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/protobuf/proto"

	"github.com/mcpengine/mcpengine/cluster/clusterpb"
)

// outcome is how one request to a grain ended.
type outcome struct {
	reply *clusterpb.SessionReply
	// notDelivered: the grain was gone before it got the request (a dead
	// letter), so sending it again is safe.
	notDelivered bool
	// lost: the grain's member ended while it had the request.
	lost string
}

// ownerGone is sent by the member's endpoint watch to the callActors
// whose grain lives at a member whose connection ended.
type ownerGone struct{}

// callActor carries one request to a grain and lives for that request.
// A grain that stops answers what it owes (session_grain.go stopping);
// a request still in its mailbox comes back as a dead letter; a member
// that dies answers nothing, so the member's endpoint watch (callWatch)
// tells the callActors waiting on it. protoactor's per-actor Watch would
// tell too, but a remote watch and unwatch per call cost 0.87 ms
// (BenchmarkSessionCall/remote-owner: 1.08 ms with, 0.21 ms without).
type callActor struct {
	target *actor.PID
	msg    proto.Message
	out    chan<- outcome // buffered 1; written once
	watch  *callWatch
	sent   bool
	// progress receives the call's progress notifications (nil: none
	// asked); m answers the server's requests sent here.
	progress func(params []byte)
	m        *Member
}

func (c *callActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.watch.add(c.target.Address, ctx.Self())
		ctx.Request(c.target, c.msg)
	case *clusterpb.SessionReply:
		c.finish(ctx, outcome{reply: m})
	case *clusterpb.SessionProgress:
		if c.progress != nil && !c.sent {
			c.progress(m.Params)
		}
	case *clusterpb.ServerRequest:
		c.m.serveRequest(ctx.Sender(), m)
	case *actor.DeadLetterResponse:
		c.finish(ctx, outcome{notDelivered: true})
	case *ownerGone:
		c.finish(ctx, outcome{lost: "the session's owner left the cluster while the call ran"})
	case *actor.Stopping:
		c.watch.remove(c.target.Address, ctx.Self())
	}
}

func (c *callActor) finish(ctx actor.Context, o outcome) {
	if c.sent {
		return
	}
	c.sent = true
	c.out <- o
	ctx.Stop(ctx.Self())
}

// callWatch is the callActors waiting on each member address; protoactor's
// remote publishes an EndpointTerminatedEvent when a member's connection
// ends (and the member list when a member leaves the topology).
type callWatch struct {
	mu     sync.Mutex
	byAddr map[string]map[*actor.PID]struct{}
}

func newCallWatch() *callWatch {
	return &callWatch{byAddr: map[string]map[*actor.PID]struct{}{}}
}

func (w *callWatch) add(addr string, pid *actor.PID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	set := w.byAddr[addr]
	if set == nil {
		set = map[*actor.PID]struct{}{}
		w.byAddr[addr] = set
	}
	set[pid] = struct{}{}
}

func (w *callWatch) remove(addr string, pid *actor.PID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byAddr[addr], pid)
	if len(w.byAddr[addr]) == 0 {
		delete(w.byAddr, addr)
	}
}

// onEvent is the event stream subscriber.
func (w *callWatch) onEvent(root *actor.RootContext, ev any) {
	t, ok := ev.(*remote.EndpointTerminatedEvent)
	if !ok {
		return
	}
	w.mu.Lock()
	var gone []*actor.PID
	for pid := range w.byAddr[t.Address] {
		gone = append(gone, pid)
	}
	w.mu.Unlock()
	for _, pid := range gone {
		root.Send(pid, &ownerGone{})
	}
}
