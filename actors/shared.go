package actors

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcpstate"
)

// Shared is the part of a session that outlives any one actor instance.
// Its fields are grouped by who may write them, so that the type says who
// touches what:
//
//   - set by NewShared, read-only after: name, cfg, sys, workers, sched;
//     callbacks, set once by the first callback;
//   - facts: written by the session actor, read by anyone;
//   - conn: the current connection's writer and reader and the pending
//     count, published by the session actor for the mailbox scheduler and
//     the connection's readers;
//   - watchers: anyone, under its mutex;
//   - actorOnly: the current session actor instance only; survives panic
//     restarts;
//   - stats, listen, background: safe for any goroutine by their own types.
type Shared struct {
	name    string
	cfg     SessionConfig
	sys     *actor.ActorSystem
	workers *WorkerPool
	// sched is the session mailbox's dispatcher and the one way to post to
	// the session (post says who runs the batch it wakes).
	sched *mailboxScheduler
	// callbacks runs user callbacks in order; made by the first one (an
	// idle session without watchers never has any).
	callbacks atomic.Pointer[callbackQueue]

	facts     facts
	conn      connSlots
	watchers  watchers
	actorOnly actorOnly

	stats Stats
	// listen is the 2026-07-28 listen stream's status (listen.go), made
	// when the session first listens or is asked about it.
	listen atomic.Pointer[listenShared]
	// background goroutines that close dead connections or run handlers;
	// Close waits for them.
	background sync.WaitGroup
}

// facts are what callers read without a round trip. Only the session actor
// writes them.
type facts struct {
	state      atomic.Int32
	stateMu    sync.Mutex
	stateCh    chan struct{} // closed at the next change; made when asked for (StateChanged)
	lastErr    atomic.Pointer[errBox]
	negotiated atomic.Pointer[Negotiated] // possibly shared with other sessions of the server: read-only
	// sessionID is the server-assigned session id of the last handshake's
	// connection, on transports that have one (Streamable HTTP's
	// Mcp-Session-Id); nil otherwise. Apart from negotiated, which
	// sessions share.
	sessionID atomic.Pointer[string]
	// closed holds the chan struct{} closed once the session is closed for
	// good, made when first asked for (Closed): a session nobody waited on
	// never needs one. Stored under stateMu.
	closed   atomic.Value
	closeErr error // set before closed is closed
}

// connSlots publish the current connection's parts to the goroutines that
// act on it outside the actor. Only the session actor stores them.
type connSlots struct {
	// writer is read by the mailbox scheduler, to write what a batch
	// queued.
	writer atomic.Pointer[writer]
	// reader is read by callers (Handle.Send), to take the turn to read,
	// when the connection's reads can be taken in turns (turns.go).
	reader atomic.Pointer[connReader]
	// pendingCalls is len(pending), read by the connection's readers for
	// their turn decisions.
	pendingCalls atomic.Int32
}

// actorOnly is touched by the current session actor instance only; it
// lives in Shared so that a panic restart keeps it.
type actorOnly struct {
	epoch         uint64
	roots         []rootEntry
	subscriptions map[string]struct{}
	logLevel      *logLevel // nil until SetLogLevel (log_level.go)
}

type errBox struct{ err error }

// Stats are a session's counters, readable at any time.
type Stats struct {
	FramesIn atomic.Uint64
	// FramesReadByCallers counts the frames of FramesIn that a caller
	// waiting for its answer read on its own goroutine (actors/turns.go)
	// rather than the connection's reader goroutine.
	FramesReadByCallers atomic.Uint64
	FramesOut           atomic.Uint64
	// InvalidFrames counts frames (or batch members) that were not valid
	// JSON-RPC: dropped, except that a broken answer with a recognisable
	// id fails its request with a *ProtocolError.
	InvalidFrames atomic.Uint64
	// InvalidUTF8Frames counts frames accepted although their strings held
	// invalid UTF-8, each bad sequence replaced by U+FFFD (the JSON is
	// otherwise valid; dropping it would leave its caller waiting).
	InvalidUTF8Frames atomic.Uint64
	LateResponses     atomic.Uint64
	Restarts          atomic.Uint64
	Requests          atomic.Uint64
	Timeouts          atomic.Uint64
	// CallbacksDropped counts notifications, progress and state events not
	// delivered because the session's callback queue was full (a callback
	// that never returns).
	CallbacksDropped atomic.Uint64
	// LocalResourceFailures counts requests and connections that failed
	// because this process ran out of descriptors or buffer memory
	// (transport.ErrLocalResources).
	LocalResourceFailures atomic.Uint64
	// Queued is the number of calls waiting for the session to be ready.
	Queued atomic.Int64
}

// NewShared prepares a session's shared state. cfg gets its defaults here.
// workers runs the session's mailbox and writer.
func NewShared(sys *actor.ActorSystem, workers *WorkerPool, cfg SessionConfig) *Shared {
	cfg.withDefaults()
	sh := &Shared{
		name:    cfg.Name,
		cfg:     cfg,
		sys:     sys,
		workers: workers,
	}
	sh.sched = newMailboxScheduler(sh)
	if cfg.Roots != nil {
		sh.actorOnly.roots = append([]rootEntry{}, cfg.Roots...)
	}
	return sh
}

// State is the current state.
func (sh *Shared) State() mcpstate.State { return mcpstate.State(sh.facts.state.Load()) }

// StateChanged returns a channel closed at the next state change.
func (sh *Shared) StateChanged() <-chan struct{} {
	sh.facts.stateMu.Lock()
	defer sh.facts.stateMu.Unlock()
	if sh.facts.stateCh == nil {
		sh.facts.stateCh = make(chan struct{})
	}
	return sh.facts.stateCh
}

// LastError is the most recent connection failure (nil if none).
func (sh *Shared) LastError() error {
	if b := sh.facts.lastErr.Load(); b != nil {
		return b.err
	}
	return nil
}

// Negotiated is what the last handshake learned (nil before the first).
func (sh *Shared) Negotiated() *Negotiated { return sh.facts.negotiated.Load() }

// TransportSessionID is the server-assigned session id of the connection
// the last handshake ran on (Streamable HTTP's Mcp-Session-Id), or "".
func (sh *Shared) TransportSessionID() string {
	if p := sh.facts.sessionID.Load(); p != nil {
		return *p
	}
	return ""
}

// Closed is closed once the session is closed for good.
func (sh *Shared) Closed() <-chan struct{} {
	if ch, ok := sh.facts.closed.Load().(chan struct{}); ok {
		return ch
	}
	sh.facts.stateMu.Lock()
	defer sh.facts.stateMu.Unlock()
	if ch, ok := sh.facts.closed.Load().(chan struct{}); ok {
		return ch
	}
	ch := make(chan struct{})
	sh.facts.closed.Store(ch)
	return ch
}

// markClosed closes the channel Closed returns, or leaves one already
// closed for the callers to come.
func (sh *Shared) markClosed() {
	sh.facts.stateMu.Lock()
	defer sh.facts.stateMu.Unlock()
	if ch, ok := sh.facts.closed.Load().(chan struct{}); ok {
		close(ch)
		return
	}
	sh.facts.closed.Store(closedChan)
}

// closedChan is the closed channel of the sessions closed before anyone
// asked for theirs.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// CloseErr is why the session closed (nil when Close was called). Valid
// once Closed() is closed.
func (sh *Shared) CloseErr() error { return sh.facts.closeErr }

// Stats returns the live counters.
func (sh *Shared) Stats() *Stats { return &sh.stats }

// waitIdle waits for the callback queue and background goroutines to finish,
// or for stop.
func (sh *Shared) waitIdle(stop <-chan struct{}) {
	done := make(chan struct{})
	// Owner: this call. Exits when every background goroutine of the
	// session has exited (they are all bounded by closeGrace or cancelled).
	go func() {
		sh.background.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-stop:
	}
	if q := sh.callbacks.Load(); q != nil {
		q.wait(stop)
	}
}

// postCallback queues fn on the session's callback queue, made on first
// use; it reports false when the queue is full and fn was dropped.
func (sh *Shared) postCallback(fn func()) bool {
	q := sh.callbacks.Load()
	if q == nil {
		q = newCallbackQueue(sh.cfg.dispatchQueue, &sh.stats.CallbacksDropped)
		if !sh.callbacks.CompareAndSwap(nil, q) {
			q = sh.callbacks.Load()
		}
	}
	return q.post(fn)
}

// RequestTimeout bounds a request whose caller set no deadline.
func (sh *Shared) RequestTimeout() time.Duration { return sh.cfg.RequestTimeout }
