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
func startPush(session *actor.PID, epoch uint64, conn transport.RequestConn, sh *Shared) {
	conn.Start(
		func(in *transport.Inbound) {
			postDecoded(session, epoch, sh, in.Messages, in.Errors, in.ReplacedUTF8, onCaller)
		},
		func(err error) { sh.sched.post(session, &connFailed{epoch: epoch, err: err}, onWorker) },
	)
}

// deliverFrame decodes one received frame off the actor and posts its valid
// messages to the session tagged with the connection's epoch; invalid
// frames are logged, counted and dropped. by runs the batch the frame
// wakes: onReader for the holder of a pull connection's turn to read
// (turns.go), onCaller for a push connection's callbacks (a POST's
// goroutine, often the waiting caller's own: caller_runs.go; the batch
// never blocks, and what it queued is written only if that cannot block
// either).
func deliverFrame(session *actor.PID, epoch uint64, sh *Shared, frame []byte, by runner) {
	// The transport hands over a frame nobody else holds, so the decoded
	// messages may alias it instead of copying their raw members.
	in := &frameIn{epoch: epoch}
	msgs, errs, replacedUTF8 := messages.AppendDecodedFrameLimit(in.one[:0], frame, sh.cfg.MaxFrameBytes)
	postFrame(session, sh, in, msgs, errs, replacedUTF8, by)
}

// postDecoded posts a frame a push connection decoded (transport.Inbound):
// the message values are copied, since their slice stays the
// transport's; the frame they alias is the session's from here on.
func postDecoded(session *actor.PID, epoch uint64, sh *Shared, msgs []messages.Message, errs []error, replacedUTF8 bool, by runner) {
	in := &frameIn{epoch: epoch}
	postFrame(session, sh, in, append(in.one[:0], msgs...), errs, replacedUTF8, by)
}

// postFrame counts a decoded frame, logs its invalid parts and posts its
// messages, and its broken answers, to the session.
func postFrame(session *actor.PID, sh *Shared, in *frameIn, msgs []messages.Message, errs []error, replacedUTF8 bool, by runner) {
	sh.stats.FramesIn.Add(1)
	epoch := in.epoch
	in.msgs = msgs
	if replacedUTF8 {
		sh.stats.InvalidUTF8Frames.Add(1)
	}
	var broken *brokenAnswers
	for _, e := range errs {
		sh.stats.InvalidFrames.Add(1)
		sh.cfg.Logger.Warn("discarded invalid frame", slog.String("session", sh.name), slog.Any("error", e))
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
	if len(msgs) > 0 {
		sh.sched.post(session, in, by)
	}
	if broken != nil {
		sh.sched.post(session, broken, by)
	}
}
