package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport"
)

// sessionActor is one MCP server connection's state machine:
//
//	connecting ──► initializing ──► ready ──► closed
//	   │  ▲               │            │
//	   │  └── backoff ◄───┴────────────┘   EOF, transport error, init timeout
//	   └──────────────────┴──► closed      never ready, server never reached
//
// It owns the pending-request map, id allocation, the wait queue, the
// negotiated facts and the deadline sweep. A new instance is created on a
// panic restart; what must survive lives in Shared.
type sessionActor struct {
	sh        *Shared
	self      *actor.PID
	state     mcpstate.State
	conn      *connection
	restarter *supervisor.Restarter // made at the first failure (restarts)

	nextID  int64
	pending pendingTable
	// handshake is the handshake request in flight, nil otherwise. Whoever
	// fails it on the session's behalf (connectionFailed, closeForGood, a
	// panic restart) clears it first, so that its completion, which would
	// otherwise fail the connection, does nothing: one failure, one restart.
	handshake *Call
	// handshakeRun is the strategy of the handshake under way (or the last
	// one that failed), nil once ready.
	handshakeRun handshaker
	queue        []*Call // calls waiting for ready, in arrival order

	// server-initiated requests being handled, by id (String form keeps the
	// number/string distinction), to cancel them on notifications/cancelled.
	serverReqs map[string]context.CancelFunc
	// rounds holds the calls of a 2026-07-28 session in a multi
	// round-trip exchange (input_rounds.go), from their first
	// input_required answer until they finish; nil when there are none.
	// Not a field of Call, which would then outgrow its size class.
	rounds map[*Call]*inputRounds
	// listen is the 2026-07-28 subscriptions/listen (listen.go), made when
	// the session first has something to listen for.
	listen *listenState
	// listenID is the listen's id while it is in pending, 0 otherwise.
	listenID int64
	// probeID is the id of the last era probe (server/discover to a server
	// of unknown era), 0 before any: a legacy server's silence to it is
	// its answer, so neither its timeout nor its late answer is counted in
	// Stats as a failure.
	probeID int64

	// sweepAt is the deadline the session is queued for in deadlines
	// (since monoStart), 0 when it is not; sweepSlot is its place there.
	sweepAt    time.Duration
	sweepSlot  int32 // guarded by deadlines.mu
	retryTimer *time.Timer
	dialCancel context.CancelFunc

	// Lifecycle telemetry (nil when off).
	connectSpan *telemetry.PhaseSpan
	backoffSpan *telemetry.PhaseSpan
	// readySince is when the connection became ready (monoNow), 0 when
	// it is not ready.
	readySince time.Duration
}

// connection is the live transport of one epoch and its helpers.
type connection struct {
	epoch  uint64
	conn   transport.Conn
	writer *writer
	reader *connReader // nil for a transport.RequestConn
	// framesAtReady is Stats.FramesIn when the connection became ready:
	// one that answered anything since did work, one that died without a
	// word after its handshake did not (supervisor's restart intensity).
	framesAtReady uint64
}

// newSessionProps returns the props that create (and on panic, re-create)
// the session actor for sh.
func newSessionProps(sh *Shared) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &sessionActor{sh: sh}
	}, actor.WithDispatcher(sh.sched), actor.WithMailbox(newSessionMailbox))
}

// Receive is the actor's single entry point; each case is one message kind
// from messages.go.
func (a *sessionActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Call:
		a.onCall(ctx, m)
	case *frameIn:
		a.onFrame(ctx, m)
	case *brokenAnswers:
		a.onBrokenAnswers(m)
	case *cancelCall:
		a.onCancel(m)
	case *Notify:
		a.onNotify(m)
	case *sweepDue:
		a.sweep()
	case *connFailed:
		if a.conn != nil && m.epoch == a.conn.epoch {
			a.connectionFailed(m.err)
		}
	case *dialed:
		a.onDialed(ctx, m)
	case *retryNow:
		if a.state == mcpstate.StateBackoff && m.epoch == a.sh.actorOnly.epoch {
			a.startConnecting()
		}
	case *serverReplyReady:
		a.onServerReply(m)
	case *setRoots:
		a.onSetRoots(m)
	case *trackSubscription:
		if m.on {
			if a.sh.actorOnly.subscriptions == nil {
				a.sh.actorOnly.subscriptions = map[string]struct{}{}
			}
			a.sh.actorOnly.subscriptions[m.uri] = struct{}{}
		} else {
			delete(a.sh.actorOnly.subscriptions, m.uri)
		}
		a.tellConnection()
		a.refreshListen()
	case *refreshListen:
		a.tellConnection()
		a.refreshListen()
	case *listenRetry:
		a.onListenRetry(m)
	case *trackLogLevel:
		a.setLogLevel(m.level)
	case *closeSession:
		a.onClose(ctx, m)
	case *actor.Started:
		a.self = ctx.Self()
		a.state = mcpstate.State(a.sh.facts.state.Load())
		a.startConnecting()
	case *actor.Restarting:
		// The old instance, after a panic: nobody may be left waiting on
		// state this instance is about to lose.
		a.sh.stats.Restarts.Add(1)
		a.sh.cfg.Telemetry.Restart(a.sh.cfg.peer(), errRestarted)
		a.endPhases(errRestarted)
		a.handshake = nil
		a.failInFlight(&mcperr.ConnectionLostError{Cause: fmt.Errorf("session actor restarted after a panic")})
		a.failQueue(&mcperr.ConnectionLostError{Cause: fmt.Errorf("session actor restarted after a panic")})
		a.dropConnection(context.Background())
		a.stopTimers()
	case *actor.Stopping:
		a.stopTimers()
	}
}

func (a *sessionActor) setState(to mcpstate.State, err error) {
	from := a.state
	if from == to && err == nil {
		return
	}
	a.state = to
	a.sh.publishState(mcpstate.StateChange{From: from, To: to, Err: err, Attempt: a.restartAttempts(), At: time.Now()})
}

func (a *sessionActor) stopTimers() {
	a.dropSweepTimer()
	if a.retryTimer != nil {
		a.retryTimer.Stop()
	}
	a.stopListenTimer()
	if a.dialCancel != nil {
		a.dialCancel()
		a.dialCancel = nil
	}
}

// monoStart anchors monoNow.
var monoStart = time.Now()

// monoNow is the monotonic time since the process started: a
// time.Duration is 8 bytes where a time.Time is 24, and the session
// actor's instants need only be subtracted.
func monoNow() time.Duration { return time.Since(monoStart) }
