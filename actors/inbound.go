package actors

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
)

// onFrame routes the messages of one received frame.
func (a *sessionActor) onFrame(_ actor.Context, m *frameIn) {
	if a.conn == nil || m.epoch != a.conn.epoch {
		return // from a connection that is already gone
	}
	for i := range m.msgs {
		msg := &m.msgs[i]
		switch msg.Kind {
		case messages.KindResponse:
			a.onResponse(msg)
		case messages.KindRequest:
			a.onServerRequest(msg)
		case messages.KindNotification:
			a.onNotification(msg)
		}
	}
}

// onBrokenAnswers fails the requests a frame's broken answers name.
func (a *sessionActor) onBrokenAnswers(m *brokenAnswers) {
	if a.conn == nil || m.epoch != a.conn.epoch {
		return // from a connection that is already gone
	}
	for _, b := range m.answers {
		a.onBrokenAnswer(b.ID, b.Reason)
	}
}

func (a *sessionActor) onResponse(msg *messages.Message) {
	id, ok := msg.ID.Int64()
	var c *Call
	if ok {
		c = a.pending.get(id)
	} else if n, isNumber := msg.ID.NumberInString(); isNumber && a.pending.get(n) != nil {
		// Our ids are numbers: this is request n's answer with its id
		// mangled. Valid JSON-RPC, but not an answer to n; say so now.
		a.sh.stats.InvalidFrames.Add(1)
		a.onBrokenAnswer(msg.ID, fmt.Sprintf("the id came back as the string %s, the request's id is the number %d", msg.ID, n))
		return
	}
	if c == nil && ok && id == a.probeID && id != 0 {
		// The era probe's answer after the engine fell back to initialize:
		// the slow server's, expected, and no failure of anyone's.
		a.probeID = 0
		return
	}
	if c == nil {
		// Late (after a timeout or cancel) or unknown: harmless, but visible.
		a.sh.stats.LateResponses.Add(1)
		a.sh.cfg.Logger.Debug("dropped response to no pending request", slog.String("session", a.sh.name), slog.String("id", msg.ID.String()))
		return
	}
	a.forget(id)
	if msg.Error != nil {
		c.finish(a, nil, a.answerError(msg.Error))
		return
	}
	if a.inputRequired(c, msg.Result) {
		a.startInputRound(c, msg.Result)
		return
	}
	c.finish(a, msg.Result, nil)
}

// onBrokenAnswer fails the request a broken answer names (already counted
// as an invalid frame) with a *ProtocolError, instead of leaving its caller
// waiting for a timeout. The id may be the request's number sent back as a
// string. An answer to no pending request is dropped.
func (a *sessionActor) onBrokenAnswer(id messages.ID, reason string) {
	n, ok := id.Int64()
	if !ok {
		n, ok = id.NumberInString()
	}
	c := a.pending.get(n)
	if !ok || c == nil {
		a.sh.cfg.Logger.Debug("dropped broken answer to no pending request", slog.String("session", a.sh.name), slog.String("id", id.String()))
		return
	}
	a.forget(n)
	c.finish(a, nil, &mcperr.ProtocolError{Method: c.Method, Reason: reason})
}

func (a *sessionActor) onNotification(msg *messages.Message) {
	switch msg.Method {
	case messages.NotificationProgress:
		a.onProgress(msg)
		return
	case messages.NotificationSubscriptionsAcknowledged:
		a.onListenAck(msg.Params)
	case messages.NotificationCancelled:
		var p messages.CancelledParams
		if messages.Unmarshal(msg.Params, &p) == nil {
			if cancel, ok := a.serverReqs[p.RequestID.String()]; ok {
				cancel()
				delete(a.serverReqs, p.RequestID.String())
			}
		}
	}
	a.sh.deliverNotification(Notification{Method: msg.Method, Params: msg.Params})
}

// onProgress routes a progress notification to the call whose token it
// carries, extending that call's deadline when it asked for it.
func (a *sessionActor) onProgress(msg *messages.Message) {
	var p messages.ProgressParams
	if err := messages.Unmarshal(msg.Params, &p); err != nil {
		a.sh.stats.InvalidFrames.Add(1)
		return
	}
	id, ok := p.ProgressToken.Int64()
	if !ok {
		return
	}
	c := a.pending.get(id)
	if c == nil || c.Progress == nil {
		return
	}
	if c.ResetOnProgress {
		now := time.Now()
		d := now.Add(a.timeoutFor(c))
		if c.MaxTotal > 0 && d.After(c.sentAt.Add(c.MaxTotal)) {
			d = c.sentAt.Add(c.MaxTotal)
		}
		if !c.Deadline.IsZero() && d.After(c.Deadline) {
			d = c.Deadline
		}
		if d.After(c.deadline) {
			c.deadline = d
		}
	}
	if c.Span != nil {
		// Here, not on the callback queue: the answer may end the span before
		// the queue gets to the callback.
		c.Span.Progress(p)
	}
	fn := c.Progress
	a.sh.postCallback(func() { fn(p) })
}

// onServerRequest answers what the engine can answer itself (ping,
// roots/list) and hands sampling and elicitation to the configured
// handlers in their own goroutines.
func (a *sessionActor) onServerRequest(msg *messages.Message) {
	switch msg.Method {
	case messages.MethodPing:
		a.reply(msg.ID, nil, nil)
		return
	case messages.MethodRootsList:
		if h := a.sh.cfg.RootsHandler; h != nil {
			a.runHandler(msg, h)
			return
		}
		if a.sh.actorOnly.roots != nil {
			a.reply(msg.ID, &messages.ListRootsResult{Roots: a.sh.actorOnly.roots}, nil)
			return
		}
	case messages.MethodSamplingCreateMessage:
		if h := a.sh.cfg.Sampling; h != nil {
			a.runHandler(msg, h)
			return
		}
	case messages.MethodElicitationCreate:
		if h := a.sh.cfg.Elicitation; h != nil {
			a.runHandler(msg, h)
			return
		}
	default:
		if st := a.sh.cfg.ServedTasks; st != nil {
			if h := st.Handlers[msg.Method]; h != nil {
				a.runHandler(msg, h)
				return
			}
		}
	}
	a.reply(msg.ID, nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found: " + msg.Method})
}

func (a *sessionActor) runHandler(msg *messages.Message, h ServerRequestHandler) {
	ctx, cancel := context.WithCancel(context.Background())
	key := msg.ID.String()
	if a.serverReqs == nil {
		a.serverReqs = map[string]context.CancelFunc{}
	}
	if old, ok := a.serverReqs[key]; ok {
		old() // a server reusing an id supersedes the old request
	}
	a.serverReqs[key] = cancel
	a.handleOffActor(ctx, cancel, msg.Method, msg.Params, h, &serverReplyReady{epoch: a.conn.epoch, id: msg.ID})
}

// handleOffActor runs h on a goroutine of its own and posts reply, with
// h's answer filled in, back to the session: for the legacy era's server
// requests and for the input requests of a 2026-07-28 round alike.
// cancel, if not nil, is called once h returned.
func (a *sessionActor) handleOffActor(ctx context.Context, cancel context.CancelFunc, method string, params messages.RawMessage, h ServerRequestHandler, reply *serverReplyReady) {
	reply.method = method
	sched, self := a.sh.sched, a.self
	tel, peer := a.sh.cfg.Telemetry, a.sh.cfg.peer()
	version := ""
	if n := a.sh.Negotiated(); n != nil {
		version = n.ProtocolVersion
	}
	a.sh.background.Add(1)
	// Owner: the session (Shared.background). Exits when the user's
	// handler returns; its ctx is cancelled on notifications/cancelled,
	// connection loss and Close (a server request), or when its call ends
	// or its round is over (an input request).
	go func() {
		defer a.sh.background.Done()
		if cancel != nil {
			defer cancel()
		}
		ctx, span := tel.StartInbound(ctx, peer, version, method, params)
		reply.result, reply.err = safeHandle(ctx, h, params)
		span.End(reply.err)
		sched.post(self, reply, onWorker)
	}()
}

func safeHandle(ctx context.Context, h ServerRequestHandler, params messages.RawMessage) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &messages.WireError{Code: messages.CodeInternalError, Message: "client handler panicked"}
		}
	}()
	return h(ctx, params)
}

func (a *sessionActor) onServerReply(m *serverReplyReady) {
	if m.input != nil {
		a.onInputAnswer(m)
		return
	}
	if a.conn == nil || a.conn.epoch != m.epoch {
		return
	}
	key := m.id.String()
	if _, live := a.serverReqs[key]; !live {
		return // cancelled by the server: no response is sent
	}
	delete(a.serverReqs, key)
	a.reply(m.id, m.result, m.err)
}

// reply writes a response to a server request.
func (a *sessionActor) reply(id messages.ID, result any, err error) {
	if err != nil {
		we, ok := err.(*messages.WireError)
		if !ok {
			we = &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}
		}
		a.writeError(id, we)
		return
	}
	var raw messages.RawMessage
	if result != nil {
		var merr error
		if raw, merr = messages.Marshal(result); merr != nil {
			a.writeError(id, &messages.WireError{Code: messages.CodeInternalError, Message: merr.Error()})
			return
		}
	}
	a.writeResult(id, raw)
}

func (a *sessionActor) onSetRoots(m *setRoots) {
	a.sh.actorOnly.roots = append([]rootEntry{}, m.roots...)
	// The stateless era has no client notifications: a server asks for
	// roots in each request's input requests instead.
	if neg := a.sh.facts.negotiated.Load(); a.state == mcpstate.StateReady && (neg == nil || !neg.Modern()) {
		a.writeNotification(messages.NotificationRootsListChanged, nil)
	}
}
