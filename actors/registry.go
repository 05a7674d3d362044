package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/internal/protoactor/actor"
	"github.com/mcpengine/mcpengine/mcperr"
)

// NewSystem returns an actor system whose logger is silent unless the
// engine's logger says otherwise: protoactor's default logger writes to the
// terminal, and when the engine itself speaks MCP over stdio, stdout is the
// protocol channel. Its process table is a small one (process_table.go).
func NewSystem(logger *slog.Logger) *actor.ActorSystem {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	config := actor.Configure(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }),
		// Dead letters of protoactor's own messages (a Stop to a stopped
		// writer) still pass its throttle, whose goroutine lives one interval:
		// keep that short so closing an engine leaves nothing running.
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
		actor.WithProcessTableBuckets(processTableBuckets),
	)
	return actor.NewActorSystemWithConfig(config)
}

// Registry is the parent of every session actor. protoactor applies a
// parent's supervisor strategy to its children (an actor spawned from the
// root context has no real supervisor), so sessions are spawned here and a
// session whose Receive panics is restarted by OneForOne within a small
// budget. Connection failures never panic: they are handled by the session
// itself with backoff.
type Registry struct {
	sys *actor.ActorSystem
	pid *actor.PID
}

// spawnSession is sent by Registry.Spawn; answered on reply unless the
// caller gave up first (claim).
type spawnSession struct {
	name  string
	props *actor.Props
	reply chan spawnResult
	// claim settles who has the request: the registry (spawnClaimed), or
	// the caller, who gave up before the registry got to it
	// (spawnAbandoned). A session spawned for a caller that had returned
	// would connect and never be closed by anyone.
	claim atomic.Int32
}

const (
	spawnPending int32 = iota
	spawnClaimed
	spawnAbandoned
)

type spawnResult struct {
	pid *actor.PID
	err error
}

type registryActor struct{}

func (registryActor) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*spawnSession); ok {
		if !m.claim.CompareAndSwap(spawnPending, spawnClaimed) {
			return // the caller gave up: nobody would hold the session
		}
		pid, err := ctx.SpawnNamed(m.props, m.name)
		m.reply <- spawnResult{pid, err}
	}
}

// panicRestarts is how many panics a session may have within
// PanicWindow before protoactor stops restarting it.
const (
	panicRestarts = 10
	PanicWindow   = time.Minute
)

// NewRegistry spawns the registry actor.
func NewRegistry(sys *actor.ActorSystem) *Registry {
	strategy := actor.NewOneForOneStrategy(panicRestarts, PanicWindow, func(any) actor.Directive { return actor.RestartDirective })
	props := actor.PropsFromProducer(func() actor.Actor { return registryActor{} }, actor.WithSupervisor(strategy))
	return &Registry{sys: sys, pid: sys.Root.Spawn(props)}
}

// Spawn starts a session actor for sh and returns its handle. When ctx
// ends first, the session is not started; if the registry was already
// starting it, Spawn waits the moment that takes and returns the handle
// (the caller then owns a session, as if ctx had ended just after).
func (r *Registry) Spawn(ctx context.Context, sh *Shared) (*Handle, error) {
	m := &spawnSession{name: sh.name, props: newSessionProps(sh), reply: make(chan spawnResult, 1)}
	r.sys.Root.Send(r.pid, m)
	var res spawnResult
	select {
	case res = <-m.reply:
	case <-ctx.Done():
		if m.claim.CompareAndSwap(spawnPending, spawnAbandoned) {
			return nil, ctx.Err()
		}
		res = <-m.reply // claimed: the registry is spawning it now
	}
	if errors.Is(res.err, actor.ErrNameExists) {
		return nil, mcperr.ErrDuplicateName
	}
	if res.err != nil {
		return nil, res.err
	}
	return &Handle{sh: sh, pid: res.pid}, nil
}

// Stop stops the registry actor (after every session was closed).
func (r *Registry) Stop() { r.sys.Root.Stop(r.pid) }
