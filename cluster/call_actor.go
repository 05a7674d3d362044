package cluster

import (
	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/proto"

	"github.com/mcpengine/mcpengine/cluster/clusterpb"
)

// outcome is how one request to a grain ended.
type outcome struct {
	reply *clusterpb.SessionReply
	// notDelivered: the grain was gone before it got the request (dead
	// letter, or not found when watched), so sending it again is safe.
	notDelivered bool
	// lost: the grain, or its member, ended while it had the request.
	lost string
}

// callActor carries one request to a grain and watches the grain
// meanwhile, so that a member dying under the request ends it at once
// (protoactor's remote turns the lost connection into Terminated) rather
// than at the caller's deadline. It lives for that one request.
type callActor struct {
	target *actor.PID
	msg    proto.Message
	out    chan<- outcome // buffered 1; written once
	sent   bool
}

func (c *callActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		ctx.Watch(c.target)
		ctx.Request(c.target, c.msg)
	case *clusterpb.SessionReply:
		c.finish(ctx, outcome{reply: m})
	case *actor.DeadLetterResponse:
		c.finish(ctx, outcome{notDelivered: true})
	case *actor.Terminated:
		if !m.Who.Equal(c.target) {
			return
		}
		switch m.Why {
		case actor.TerminatedReason_NotFound:
			c.finish(ctx, outcome{notDelivered: true})
		case actor.TerminatedReason_AddressTerminated:
			c.finish(ctx, outcome{lost: "the session's owner left the cluster while the call ran"})
		default:
			c.finish(ctx, outcome{lost: "the session's owner stopped it while the call ran"})
		}
	}
}

func (c *callActor) finish(ctx actor.Context, o outcome) {
	if c.sent {
		return
	}
	c.sent = true
	c.out <- o
	ctx.Unwatch(c.target)
	ctx.Stop(ctx.Self())
}
