package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/transport"
)

// writerActor owns the write side of one connection. It is a child of the
// session actor, so it stops with it. Its Receive is the one place that
// blocks on a write: a slow server stalls only the writer, never the
// session actor, and Close on the connection unblocks it.
type writerActor struct {
	epoch   uint64
	conn    transport.Conn
	box     *outbox
	session *actor.PID
	failed  bool
}

func (w *writerActor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*flushOutbox); !ok {
		return
	}
	batch := w.box.take()
	if len(batch) == 0 {
		return
	}
	if w.failed {
		w.box.recycle(batch)
		return
	}
	err := w.conn.WriteFrames(batch...)
	w.box.recycle(batch)
	if err != nil {
		w.failed = true
		ctx.Send(w.session, &connFailed{epoch: w.epoch, err: err})
	}
}
