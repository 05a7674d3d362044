package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/mcperr"
)

// Registry is the parent of every session actor. protoactor applies a
// parent's supervisor strategy to its children (an actor spawned from the
// root context has no real supervisor), so sessions are spawned here and a
// session whose Receive panics is restarted by OneForOne within a small
// budget. Connection failures never panic: they are handled by the session
// itself with backoff.
//
// Each engine has one, on the process's shared actor system (System): its
// name, unique in the system, scopes the engine's session names, and
// stopping it stops the engine's actors and no other engine's.
type Registry struct {
	sys *actor.ActorSystem
	pid *actor.PID
	// stopped is closed when the registry actor, and so every session it
	// parents, has stopped.
	stopped chan struct{}
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

type registryActor struct {
	stopped chan struct{}
}

func (r registryActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *spawnSession:
		if !m.claim.CompareAndSwap(spawnPending, spawnClaimed) {
			return // the caller gave up: nobody would hold the session
		}
		pid, err := ctx.SpawnNamed(m.props, m.name)
		m.reply <- spawnResult{pid, err}
	case *actor.Stopped:
		// protoactor stops an actor after its children, once: the
		// engine's actors are gone.
		close(r.stopped)
	}
}

// panicRestarts is how many panics a session may have within
// PanicWindow before protoactor stops restarting it.
const (
	panicRestarts = 10
	PanicWindow   = time.Minute
)

// NewRegistry spawns a registry actor on the process's actor system.
// What protoactor logs about its sessions goes to logger (nil: nowhere).
func NewRegistry(logger *slog.Logger) *Registry {
	sys := System()
	stopped := make(chan struct{})
	strategy := actor.NewOneForOneStrategy(panicRestarts, PanicWindow, func(any) actor.Directive { return actor.RestartDirective })
	props := actor.PropsFromProducer(func() actor.Actor { return registryActor{stopped: stopped} }, actor.WithSupervisor(strategy))
	r := &Registry{sys: sys, pid: sys.Root.SpawnPrefix(props, "engine"), stopped: stopped}
	if logger != nil {
		registryLoggers.Store(r.pid.Id, logger)
	}
	return r
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

// Stop stops the registry actor (after every session was closed) and the
// sessions it still parents, and waits until they have stopped or done is
// closed (nil: no bound).
func (r *Registry) Stop(done <-chan struct{}) {
	r.sys.Root.Stop(r.pid)
	select {
	case <-r.stopped:
	case <-done:
	}
	registryLoggers.Delete(r.pid.Id)
}
