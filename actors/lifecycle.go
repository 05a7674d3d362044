package actors

import (
	"context"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport"
)

// startConnecting begins a new epoch: dial in a goroutine (a subprocess
// start or, later, an HTTP round trip must never block Receive).
func (a *sessionActor) startConnecting() {
	a.sh.actorOnly.epoch++
	epoch := a.sh.actorOnly.epoch
	a.setState(mcpstate.StateConnecting, nil)
	a.endBackoff(nil)
	a.connectSpan = a.sh.cfg.Telemetry.StartPhase(telemetry.SpanConnect, a.sh.cfg.peer())
	dctx, cancel := context.WithTimeout(context.Background(), a.sh.cfg.InitTimeout)
	a.dialCancel = cancel
	dialer, sched, self := a.sh.cfg.Dialer, a.sh.sched, a.self
	a.sh.background.Add(1)
	sh := a.sh
	// Owner: the session actor. Exits when Dial returns (bounded by the
	// init timeout, cancelled by Close) and the session took the
	// connection or it was closed.
	go func() {
		defer sh.background.Done()
		conn, err := dialer.Dial(dctx)
		m := &dialed{epoch: epoch, conn: conn, err: err, taken: make(chan bool, 1)}
		sched.post(self, m, onWorker)
		if conn != nil && !dialTaken(m, sh) {
			closeRefused(conn)
		}
	}()
}

// dialTaken waits for the session's answer to a dialed connection. A
// session that closed meanwhile may have stopped before reading the
// message, which then never gets an answer; it answers before it moves to
// closed when it took the connection, and after that it never does. The
// wait watches state changes rather than sh.Closed(), whose channel,
// once made, a session would keep for its whole life.
func dialTaken(m *dialed, sh *Shared) bool {
	for {
		changed := sh.StateChanged()
		if sh.State() == mcpstate.StateClosed {
			select {
			case taken := <-m.taken:
				return taken
			default:
				return false
			}
		}
		select {
		case taken := <-m.taken:
			return taken
		case <-changed:
		}
	}
}

// closeRefused shuts down a connection no session took, on the dial
// goroutine, so that Close (which waits for that goroutine) returns only
// once it is gone.
func closeRefused(conn transport.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	_ = conn.Close(ctx)
}

func (a *sessionActor) onDialed(ctx actor.Context, m *dialed) {
	if a.dialCancel != nil {
		a.dialCancel()
		a.dialCancel = nil
	}
	if m.epoch != a.sh.actorOnly.epoch || a.state != mcpstate.StateConnecting {
		// A dial that finished after Close or a newer attempt: its
		// goroutine closes the connection.
		m.taken <- false
		return
	}
	m.taken <- true
	a.connectSpan.End(m.err)
	a.connectSpan = nil
	if m.err != nil {
		a.sh.cfg.Logger.Debug("dial failed", slog.String("session", a.sh.name), slog.Any("error", m.err))
		a.retryLater(m.err)
		return
	}
	c := &connection{epoch: m.epoch, conn: m.conn}
	sched, self, epoch := a.sh.sched, a.self, m.epoch
	c.writer = newWriter(m.conn, func(err error) { sched.post(self, &connFailed{epoch: epoch, err: err}, onWorker) })
	a.conn = c
	a.sh.conn.writer.Store(c.writer)
	if rc := c.writer.req; rc != nil {
		// No reader goroutine: the transport calls back, and stops doing so
		// before its Close returns.
		startPush(self, epoch, rc, a.sh)
	} else {
		c.reader = newConnReader(self, epoch, m.conn, a.sh)
		if c.reader.intr != nil {
			a.sh.conn.reader.Store(c.reader)
		}
		// Owner: the session actor's connection. Exits when ReadFrame
		// fails, which Close of the connection guarantees (closeInBackground
		// kicks it in case the turn was free).
		go c.reader.run()
	}
	a.setState(mcpstate.StateInitializing, nil)
	a.beginHandshake()
}

func (a *sessionActor) beginHandshake() {
	hs := a.sh.cfg.Handshake.newRun()
	a.handshakeRun = hs
	if st, ok := hs.(steppedHandshake); ok {
		a.handshakeStep(st, st.begin(a.sh.cfg.clientCapabilities()))
		return
	}
	method, params := hs.request(a.sh.cfg.clientCapabilities())
	raw, err := messages.MarshalOnce(params)
	if err != nil {
		a.connectionFailed(err)
		return
	}
	c := NewCall(method, raw)
	c.Timeout = a.sh.cfg.InitTimeout
	c.Span, c.Params = a.sh.cfg.Telemetry.StartCall(context.Background(), a.sh.cfg.peer(), "", a.transportSessionID(), method, raw)
	a.handshake = c
	c.onDone = func(a *sessionActor, result messages.RawMessage, err error) {
		if a.handshake != c {
			// The session failed this request itself (connection lost,
			// closed, actor restarted) and has already handled why.
			return
		}
		a.handshake = nil
		if err == nil {
			var neg Negotiated
			neg, err = hs.accept(result)
			if err == nil {
				a.becomeReady(neg)
				return
			}
		}
		a.connectionFailed(err)
	}
	a.transmit(c)
}

func (a *sessionActor) becomeReady(neg Negotiated) {
	if sid := a.transportSessionID(); sid != "" {
		a.sh.facts.sessionID.Store(&sid)
	} else {
		a.sh.facts.sessionID.Store(nil)
	}
	shared := &neg
	if s, ok := a.sh.cfg.Handshake.(negotiatedSharer); ok {
		shared = s.share(shared)
	}
	hs := a.handshakeRun
	a.handshakeRun = nil // its state is no use once ready
	a.sh.facts.negotiated.Store(shared)
	// The restarter is not reset here: a server that dies right after its
	// handshake would be respawned at the first delay forever. It starts
	// over only when a connection stayed ready long enough
	// (connectionFailed, supervisor.Policy.ResetAfter).
	a.readySince = monoNow()
	if a.conn != nil {
		a.conn.framesAtReady = a.sh.stats.FramesIn.Load()
	}
	a.setState(mcpstate.StateReady, nil)
	// The connection learns whether to listen before the handshake's last
	// notification is written: Streamable HTTP holds that notification
	// until its GET stream is open, so a list change the server sends
	// right after it is not lost.
	a.tellConnection()
	if method, ok := hs.completed(); ok {
		a.writeNotification(method, nil)
	}
	a.replaySessionState()
	a.listenConnected()
	queued := a.queue
	a.queue = nil
	a.sh.stats.Queued.Store(0)
	for _, c := range queued {
		if !c.isFinished() {
			a.transmit(c)
		}
	}
	if a.pending.len() == 0 && len(a.rounds) == 0 {
		// Nothing left to time out: an idle session keeps no timer until
		// its first call arms one (which later calls then reuse).
		a.dropSweepTimer()
	}
}

// replaySessionState re-sends what the server forgot with the old
// connection: resource subscriptions and the log level.
func (a *sessionActor) replaySessionState() {
	if neg := a.sh.facts.negotiated.Load(); neg != nil && neg.Modern() {
		return // the stateless era has neither subscribe nor setLevel
	}
	logFailure := func(what string) func(*sessionActor, messages.RawMessage, error) {
		return func(a *sessionActor, _ messages.RawMessage, err error) {
			if err != nil {
				a.sh.cfg.Logger.Warn("replay after reconnect failed", slog.String("session", a.sh.name), slog.String("what", what), slog.Any("error", err))
			}
		}
	}
	for uri := range a.sh.actorOnly.subscriptions {
		raw, _ := messages.Marshal(&messages.SubscribeParams{URI: uri})
		c := NewCall(messages.MethodResourcesSubscribe, raw)
		c.onDone = logFailure("subscribe " + uri)
		a.transmit(c)
	}
	if level := a.logLevel(); level != "" {
		raw, _ := messages.Marshal(&messages.SetLevelParams{Level: messages.LoggingLevel(level)})
		c := NewCall(messages.MethodLoggingSetLevel, raw)
		c.onDone = logFailure("logging/setLevel")
		a.transmit(c)
	}
}

// connectionFailed is the single path out of connecting/initializing/ready
// on any failure: fail what was sent, drop the connection, then back off or
// close for good as the supervisor's classification says.
func (a *sessionActor) connectionFailed(err error) {
	if a.state == mcpstate.StateClosed {
		return
	}
	// The failure is handled here, once: the handshake in flight, failed
	// below with the others, must not report it a second time.
	a.handshake = nil
	if a.state == mcpstate.StateInitializing {
		if ae := authRefused(err); ae != nil {
			err = ae // the same credentials would be refused again
		}
	}
	var stderr []byte
	served := false
	if a.conn != nil {
		// The transport waits, briefly, for a dead child's last lines
		// (stdio's Stderr): read once, for this error and for giving up.
		stderr = serverStderr(a.conn.conn)
		err = withServerStderr(err, stderr)
		served = a.readySince != 0 && a.sh.stats.FramesIn.Load() > a.conn.framesAtReady
	}
	a.sh.cfg.Logger.Debug("connection failed", slog.String("session", a.sh.name), slog.Any("error", err))
	a.failInFlight(&mcperr.ConnectionLostError{Cause: err})
	var readyFor time.Duration
	if a.readySince != 0 {
		readyFor = monoNow() - a.readySince
	}
	a.restarts().ConnectionEnded(readyFor, served)
	a.sessionEnded(err)
	a.dropConnection(context.Background())
	a.retryOrGiveUp(err, stderr)
}

// restarts is the actor's restart policy state, made at its first failed
// connection: a session whose connections never failed carries none.
func (a *sessionActor) restarts() *supervisor.Restarter {
	if a.restarter == nil {
		a.restarter = supervisor.NewRestarter(a.sh.cfg.Backoff, a.sh.cfg.MaxBudgetedRetries, nil)
	}
	return a.restarter
}

// restartAttempts is how many retries were scheduled in a row.
func (a *sessionActor) restartAttempts() int {
	if a.restarter == nil {
		return 0
	}
	return a.restarter.Attempts()
}

func (a *sessionActor) retryLater(err error) { a.retryOrGiveUp(err, nil) }

// retryOrGiveUp schedules the next attempt, or closes the session for
// good: when the failure is permanent, when its budget is spent, when the
// first connection could not reach the server, or when a session that was
// never ready has seen its server fail before the handshake
// StartAttempts times (stderr is what the server wrote on the last try,
// nil when the dial itself failed).
func (a *sessionActor) retryOrGiveUp(err error, stderr []byte) {
	if ce := a.unreachableAtFirstConnect(err); ce != nil {
		a.closeForGood(ce)
		return
	}
	if se := a.startGivenUp(err, stderr); se != nil {
		a.closeForGood(se)
		return
	}
	delay, ok := a.restarts().Next(supervisor.Classify(err))
	if !ok {
		a.closeForGood(err)
		return
	}
	a.sh.stats.Restarts.Add(1)
	a.backoffSpan = a.sh.cfg.Telemetry.Backoff(a.sh.cfg.peer(), err, a.restartAttempts(), delay)
	a.setState(mcpstate.StateBackoff, err)
	epoch := a.sh.actorOnly.epoch
	sched, self := a.sh.sched, a.self
	if a.retryTimer != nil {
		a.retryTimer.Stop()
	}
	// time.AfterFunc starts no goroutine until it fires; it then only posts
	// a message, so the actor never sleeps.
	a.retryTimer = time.AfterFunc(delay, func() { sched.post(self, &retryNow{epoch: epoch}, onWorker) })
}

// dropConnection forgets the current connection, cancels the handlers of
// its server requests, and shuts it down in the background (a subprocess
// may take seconds to exit), bounded by bound and by closeGrace. The writer
// stays registered until the transport is closed, so frames the current
// batch queued (notifications/cancelled on Close) still go out.
func (a *sessionActor) dropConnection(bound context.Context) {
	for key, cancel := range a.serverReqs {
		cancel()
		delete(a.serverReqs, key)
	}
	c := a.conn
	if c == nil {
		return
	}
	a.conn = nil
	if c.reader != nil {
		a.sh.conn.reader.CompareAndSwap(c.reader, nil)
	}
	a.closeInBackground(c, bound)
}

func (a *sessionActor) closeInBackground(c *connection, bound context.Context) {
	a.sh.background.Add(1)
	// Owner: the session (Shared.background). Exits when the transport's
	// Close returns, bounded by closeGrace and by bound.
	go func() {
		defer a.sh.background.Done()
		ctx, cancel := context.WithTimeout(bound, closeGrace)
		defer cancel()
		if c.reader != nil {
			c.reader.kick()
		}
		_ = c.conn.Close(ctx)
		if c.writer != nil {
			a.sh.conn.writer.CompareAndSwap(c.writer, nil)
		}
		if c.reader != nil {
			<-c.reader.done
		}
	}()
}

// closeForGood moves to closed with a cause (retry budget spent, permanent
// error).
func (a *sessionActor) closeForGood(cause error) {
	a.handshake = nil // failed below; closing is its whole outcome
	a.stopTimers()
	a.sessionEnded(cause)
	a.endPhases(cause)
	a.sh.facts.closeErr = cause
	a.failInFlight(&mcperr.ClosedError{Cause: cause})
	a.failQueue(&mcperr.ClosedError{Cause: cause})
	a.setState(mcpstate.StateClosed, cause)
	a.sh.markClosed()
}
