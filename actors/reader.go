package actors

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// startPush wires a connection that delivers frames by callback (HTTP: the
// goroutine of each request reads its own answer), so the session holds no
// reader goroutine while idle. Frames may arrive from several goroutines at
// once; they take the same decode-and-post path as the read loop's.
func startPush(sys *actor.ActorSystem, session *actor.PID, epoch uint64, conn transport.PushConn, sh *Shared) {
	conn.Start(
		func(frame []byte) { deliverFrame(sys, session, epoch, sh, frame, false) },
		func(err error) { sys.Root.Send(session, &connFailed{epoch: epoch, err: err}) },
	)
}

// deliverFrame decodes one received frame off the actor and posts its valid
// messages to the session tagged with the connection's epoch; invalid
// frames are logged, counted and dropped. inline lets the session run the
// batch on this goroutine when its mailbox is idle; only the holder of a
// pull connection's turn to read (turns.go) may ask for that.
func deliverFrame(sys *actor.ActorSystem, session *actor.PID, epoch uint64, sh *Shared, frame []byte, inline bool) {
	sh.stats.FramesIn.Add(1)
	// The transport hands over a frame nobody else holds, so the decoded
	// messages may alias it instead of copying their raw members.
	in := &frameIn{epoch: epoch}
	msgs, errs, replacedUTF8 := messages.AppendDecodedFrameLimit(in.one[:0], frame, sh.cfg.MaxFrameBytes)
	in.msgs = msgs
	if replacedUTF8 {
		sh.stats.InvalidUTF8Frames.Add(1)
	}
	var broken *brokenAnswers
	for _, e := range errs {
		sh.stats.InvalidFrames.Add(1)
		sh.log.Warn("discarded invalid frame", slog.String("session", sh.name), slog.Any("error", e))
		// A broken answer that names its request still ends it (inbound.go).
		if ime, ok := e.(*messages.InvalidMessageError); ok && ime.ID.IsValid() {
			if broken == nil {
				broken = &brokenAnswers{epoch: epoch}
			}
			broken.answers = append(broken.answers, ime)
		}
	}
	if len(msgs) == 0 && broken == nil {
		return
	}
	if inline {
		sh.readerPosting.Store(true)
	}
	if len(msgs) > 0 {
		sys.Root.Send(session, in)
	}
	if broken != nil {
		sys.Root.Send(session, broken)
	}
	if inline {
		sh.readerPosting.Store(false)
	}
}
