package actors

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// registryLoggers maps a Registry's process id ("engine$1") to the logger
// of the engine that owns it, while the registry runs.
var registryLoggers sync.Map // string → *slog.Logger

// engineLogs is the handler of the shared actor system's logger. Every
// engine used to have a system logging to its Config.Logger; one system
// for the process has one logger, so this handler sends each record to the
// logger of the engine whose actor it names: the first *actor.PID among
// its attributes ("self" of a panic protoactor recovers, "actor" of a
// supervision event, "pid" of a dead letter) is a child of a registry,
// and its id starts with the registry's. A record that names no engine's
// actor (the system's start) is dropped, as a discarding engine logger
// would.
type engineLogs struct {
	// with replays the logger's With and WithGroup calls on the handler a
	// record is sent to.
	with []func(slog.Handler) slog.Handler
}

// Enabled reports whether any running engine logs at level, so that
// protoactor builds no record while every engine discards them.
func (engineLogs) Enabled(ctx context.Context, level slog.Level) bool {
	enabled := false
	registryLoggers.Range(func(_, l any) bool {
		enabled = l.(*slog.Logger).Enabled(ctx, level)
		return !enabled
	})
	return enabled
}

func (h engineLogs) Handle(ctx context.Context, r slog.Record) error {
	logger := loggerOf(r)
	if logger == nil || !logger.Enabled(ctx, r.Level) {
		return nil
	}
	target := logger.Handler()
	for _, w := range h.with {
		target = w(target)
	}
	return target.Handle(ctx, r)
}

// loggerOf returns the logger of the engine whose actor r names, or nil.
func loggerOf(r slog.Record) *slog.Logger {
	var logger *slog.Logger
	r.Attrs(func(a slog.Attr) bool {
		pid, ok := a.Value.Any().(*actor.PID)
		if !ok || pid == nil {
			return true
		}
		registry, _, _ := strings.Cut(pid.Id, "/")
		if l, ok := registryLoggers.Load(registry); ok {
			logger = l.(*slog.Logger)
		}
		return false
	})
	return logger
}

func (h engineLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.plus(func(t slog.Handler) slog.Handler { return t.WithAttrs(attrs) })
}

func (h engineLogs) WithGroup(name string) slog.Handler {
	return h.plus(func(t slog.Handler) slog.Handler { return t.WithGroup(name) })
}

func (h engineLogs) plus(w func(slog.Handler) slog.Handler) engineLogs {
	return engineLogs{with: append(h.with[:len(h.with):len(h.with)], w)}
}
