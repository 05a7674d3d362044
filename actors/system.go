package actors

import (
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// System returns the process's actor system, built on first use and
// shared by every engine (every Registry) of the process.
//
// protoactor builds a process table of 1,024 concurrent maps of 32 shards
// each per actor system (~67,000 allocations, 2.8 MB, ~5 ms): a fixed cost
// an engine with a system of its own would pay on every New, mostly for
// empty shards. Shared, it is paid once per process, whatever the number
// of engines and sessions.
//
// Sharing is safe because an engine's actors are all children of its own
// Registry, whose name protoactor makes unique in the system: two engines'
// sessions of the same name are different processes ("engine$1/a",
// "engine$2/a"), and stopping one registry stops only its children. The
// system is never shut down: protoactor's Shutdown only closes a channel,
// and the system runs no goroutine of its own (its dead-letter throttle
// starts one for a single throttle interval after a logged dead letter;
// testkit.ProtoactorThrottleWaits names it).
func System() *actor.ActorSystem { return sharedSystem() }

var sharedSystem = sync.OnceValue(func() *actor.ActorSystem {
	config := actor.Configure(
		// protoactor's default logger writes to the terminal, and when the
		// engine itself speaks MCP over stdio, stdout is the protocol
		// channel: what protoactor logs goes to the engine it is about
		// (system_log.go).
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(engineLogs{}) }),
		// Dead letters of protoactor's own messages (a Stop to a stopped
		// writer) still pass its throttle, whose goroutine lives one interval:
		// keep that short so closing an engine leaves nothing running.
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
	)
	return actor.NewActorSystemWithConfig(config)
})
