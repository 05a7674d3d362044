package actors

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// NewSystem returns an actor system whose logger is silent unless the
// engine's logger says otherwise: protoactor's default logger writes to the
// terminal, and when the engine itself speaks MCP over stdio, stdout is the
// protocol channel. Its process table is a small one (process_table.go),
// built small (system_build.go).
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
	)
	if sys := buildSystem(config); sys != nil {
		return sys
	}
	sys := actor.NewActorSystemWithConfig(config)
	shrinkProcessTable(sys)
	return sys
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

// spawnSession is sent by Registry.Spawn; answered on reply.
type spawnSession struct {
	name  string
	props *actor.Props
	reply chan spawnResult
}

type spawnResult struct {
	pid *actor.PID
	err error
}

type registryActor struct{}

func (registryActor) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*spawnSession); ok {
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

// ErrDuplicateName is returned when a session name is already taken.
var ErrDuplicateName = errors.New("mcpengine: a session with this name already exists")

// Spawn starts a session actor for sh and returns its handle.
func (r *Registry) Spawn(ctx context.Context, sh *Shared) (*Handle, error) {
	reply := make(chan spawnResult, 1)
	r.sys.Root.Send(r.pid, &spawnSession{name: sh.name, props: newSessionProps(sh), reply: reply})
	select {
	case res := <-reply:
		if errors.Is(res.err, actor.ErrNameExists) {
			return nil, ErrDuplicateName
		}
		if res.err != nil {
			return nil, res.err
		}
		return &Handle{sh: sh, pid: res.pid}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Stop stops the registry actor (after every session was closed).
func (r *Registry) Stop() { r.sys.Root.Stop(r.pid) }
