package actors

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// Shared is the part of a session that outlives any one actor instance: the
// configuration a restarted actor is rebuilt from, the facts callers read
// without a round trip (state, negotiated version, stats), and the
// subscriber lists. Fields marked "actor only" are touched exclusively by
// the current session actor instance.
type Shared struct {
	name    string
	cfg     SessionConfig
	sys     *actor.ActorSystem
	workers *Workers
	log     *slog.Logger

	state      atomic.Int32
	stateMu    sync.Mutex
	stateCh    chan struct{} // closed and replaced on every change
	lastErr    atomic.Pointer[errBox]
	negotiated atomic.Pointer[Negotiated]
	closed     chan struct{} // closed once the session is closed for good
	closeErr   error         // set before closed is closed

	stats Stats
	disp  *dispatcher

	watchMu      sync.Mutex
	nextWatch    int
	notifyWatch  map[int]func(Notification)
	stateWatch   map[int]func(StateChange)
	hasNotifyers atomic.Bool

	// background goroutines that close dead connections or run handlers;
	// Close waits for them.
	background sync.WaitGroup

	// writer of the current connection, for the session dispatcher's
	// flush after each batch (set and cleared by the actor).
	writer atomic.Pointer[writer]
	// readerPosting is set by the reader around its Send of a frame, so
	// that the session dispatcher lets it run the batch itself.
	readerPosting atomic.Bool
	// callersPosting counts callers inside Handle.Post: a mailbox woken by
	// one of them runs on that caller (sessionDispatcher).
	callersPosting atomic.Int32
	// reader of the current connection when its reads can be taken in
	// turns (turns.go); set and cleared by the actor.
	reader atomic.Pointer[connReader]
	// pendingCalls is len(pending), published by the actor for the turn
	// decisions of the connection's readers.
	pendingCalls atomic.Int32
	// listen is the 2026-07-28 listen stream's status (listen.go).
	listen listenShared

	// actor only: survives panic restarts.
	epoch         uint64
	roots         []rootEntry
	subscriptions map[string]struct{}
	logLevel      string
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
func NewShared(sys *actor.ActorSystem, workers *Workers, cfg SessionConfig) *Shared {
	cfg.withDefaults()
	sh := &Shared{
		name:    cfg.Name,
		cfg:     cfg,
		sys:     sys,
		workers: workers,
		log:     cfg.Logger,
		stateCh: make(chan struct{}),
		closed:  make(chan struct{}),
	}
	sh.disp = newDispatcher(cfg.DispatchQueue, &sh.stats.CallbacksDropped)
	if cfg.Roots != nil {
		sh.roots = append([]rootEntry{}, cfg.Roots...)
	}
	return sh
}

// Name is the session's name.
func (sh *Shared) Name() string { return sh.name }

// State is the current state.
func (sh *Shared) State() State { return State(sh.state.Load()) }

// StateChanged returns a channel closed at the next state change.
func (sh *Shared) StateChanged() <-chan struct{} {
	sh.stateMu.Lock()
	defer sh.stateMu.Unlock()
	return sh.stateCh
}

// LastError is the most recent connection failure (nil if none).
func (sh *Shared) LastError() error {
	if b := sh.lastErr.Load(); b != nil {
		return b.err
	}
	return nil
}

// Negotiated is what the last handshake learned (nil before the first).
func (sh *Shared) Negotiated() *Negotiated { return sh.negotiated.Load() }

// Closed is closed once the session is closed for good.
func (sh *Shared) Closed() <-chan struct{} { return sh.closed }

// CloseErr is why the session closed (nil when Close was called). Valid
// once Closed() is closed.
func (sh *Shared) CloseErr() error { return sh.closeErr }

// Stats returns the live counters.
func (sh *Shared) Stats() *Stats { return &sh.stats }

// WatchNotifications registers fn for every server notification other than
// progress; it runs on the session's dispatcher. The returned func removes it.
func (sh *Shared) WatchNotifications(fn func(Notification)) func() {
	sh.watchMu.Lock()
	id := sh.nextWatch
	sh.nextWatch++
	if sh.notifyWatch == nil {
		sh.notifyWatch = map[int]func(Notification){}
	}
	sh.notifyWatch[id] = fn
	sh.hasNotifyers.Store(true)
	sh.watchMu.Unlock()
	return func() {
		sh.watchMu.Lock()
		delete(sh.notifyWatch, id)
		sh.hasNotifyers.Store(len(sh.notifyWatch) > 0)
		sh.watchMu.Unlock()
	}
}

// WatchState registers fn for every state change, in order, on the
// session's dispatcher. The returned func removes it.
func (sh *Shared) WatchState(fn func(StateChange)) func() {
	sh.watchMu.Lock()
	id := sh.nextWatch
	sh.nextWatch++
	if sh.stateWatch == nil {
		sh.stateWatch = map[int]func(StateChange){}
	}
	sh.stateWatch[id] = fn
	sh.watchMu.Unlock()
	return func() {
		sh.watchMu.Lock()
		delete(sh.stateWatch, id)
		sh.watchMu.Unlock()
	}
}

func (sh *Shared) publishState(ch StateChange) {
	sh.state.Store(int32(ch.To))
	if ch.Err != nil {
		sh.lastErr.Store(&errBox{ch.Err})
	}
	sh.stateMu.Lock()
	close(sh.stateCh)
	sh.stateCh = make(chan struct{})
	sh.stateMu.Unlock()

	sh.watchMu.Lock()
	if len(sh.stateWatch) == 0 {
		sh.watchMu.Unlock()
		return
	}
	fns := make([]func(StateChange), 0, len(sh.stateWatch))
	for _, fn := range sh.stateWatch {
		fns = append(fns, fn)
	}
	sh.watchMu.Unlock()
	if len(fns) > 0 {
		sh.disp.post(func() {
			for _, fn := range fns {
				fn(ch)
			}
		})
	}
}

func (sh *Shared) deliverNotification(n Notification) {
	if tap := sh.cfg.NotificationTap; tap != nil {
		tap(n)
	}
	if !sh.hasNotifyers.Load() {
		return
	}
	sh.watchMu.Lock()
	fns := make([]func(Notification), 0, len(sh.notifyWatch))
	for _, fn := range sh.notifyWatch {
		fns = append(fns, fn)
	}
	sh.watchMu.Unlock()
	sh.disp.post(func() {
		for _, fn := range fns {
			fn(n)
		}
	})
}

// WaitIdle waits for the dispatcher and background goroutines to finish,
// or for stop.
func (sh *Shared) WaitIdle(stop <-chan struct{}) {
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
	sh.disp.wait(stop)
}
