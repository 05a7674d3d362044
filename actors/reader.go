package actors

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// runReader is the blocking read loop of one connection. It runs in its own
// goroutine, never inside Receive, so a blocked read cannot hold up the
// session actor or its Stop. It decodes envelopes here, off the actor, and
// posts the valid messages to the session tagged with the connection's
// epoch; invalid frames are logged, counted and dropped.
func runReader(sys *actor.ActorSystem, session *actor.PID, epoch uint64, conn transport.Conn, sh *Shared, done chan<- struct{}) {
	defer close(done)
	for {
		frame, err := conn.ReadFrame()
		if err != nil {
			sys.Root.Send(session, &connFailed{epoch: epoch, err: err})
			return
		}
		sh.stats.FramesIn.Add(1)
		msgs, errs := messages.DecodeFrame(frame)
		for _, e := range errs {
			sh.stats.InvalidFrames.Add(1)
			sh.log.Warn("discarded invalid frame", slog.String("session", sh.name), slog.Any("error", e))
		}
		if len(msgs) > 0 {
			sh.readerPosting.Store(true)
			sys.Root.Send(session, &frameIn{epoch: epoch, msgs: msgs})
			sh.readerPosting.Store(false)
		}
	}
}
