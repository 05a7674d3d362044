package actors

import (
	"log/slog"
	"reflect"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/mcpengine/mcpengine/internal/protoactor/actor"
	"github.com/mcpengine/mcpengine/internal/protoactor/eventstream"
	"github.com/mcpengine/mcpengine/internal/protoactor/extensions"
	cmap "github.com/orcaman/concurrent-map"
)

// protoactor's NewActorSystem builds a process table of 1,024 concurrent
// maps of 32 shards each (67,000 allocations, 2.9 MB) that
// shrinkProcessTable then throws away: ~5 ms of CPU per engine, more than
// the rest of a process's first call over HTTP (issue 17's fixed cost).
// buildSystem assembles the same system from protoactor's exported parts,
// in NewActorSystemWithConfig's order, with the small table from the
// start. Two fields of ActorSystem are unexported (the logger, and the
// channel Shutdown closes); they are set through reflect, and when this
// version of protoactor has no such fields, NewSystem falls back to
// NewActorSystem. TestBuiltSystemMatchesProtoactors holds the two equal.

// systemIDs numbers the systems built here: protoactor's ID is a random
// string used only in its logs.
var systemIDs atomic.Int64

// localAddress is protoactor's address of a system without remoting.
const localAddress = "nonhost"

// buildSystem returns the system NewActorSystemWithConfig(config) would,
// with a process table of processTableBuckets maps, or nil when the
// unexported fields are not what this file expects.
func buildSystem(config *actor.Config) *actor.ActorSystem {
	sys := &actor.ActorSystem{ID: "mcpengine-" + strconv.FormatInt(systemIDs.Add(1), 10), Config: config}
	if !setUnexported(sys, "logger", config.LoggerFactory(sys)) || !setUnexported(sys, "stopper", make(chan struct{})) {
		return nil
	}
	sys.ProcessRegistry = &actor.ProcessRegistryValue{ActorSystem: sys, Address: localAddress, LocalPIDs: newProcessTable()}
	sys.Root = actor.NewRootContext(sys, actor.EmptyMessageHeader)
	sys.Guardians = actor.NewGuardians(sys)
	sys.EventStream = eventstream.NewEventStream()
	sys.DeadLetter = actor.NewDeadLetter(sys)
	sys.Extensions = extensions.NewExtensions()
	actor.SubscribeSupervision(sys)
	sys.Extensions.Register(actor.NewMetrics(sys, config.MetricsProvider))
	sys.ProcessRegistry.Add(actor.NewEventStreamProcess(sys), "eventstream")
	sys.Logger().Info("actor system started", slog.String("id", sys.ID))
	return sys
}

// newProcessTable is a process table of processTableBuckets maps.
func newProcessTable() *actor.SliceMap {
	table := &actor.SliceMap{LocalPIDs: make([]cmap.ConcurrentMap, processTableBuckets)}
	for i := range table.LocalPIDs {
		table.LocalPIDs[i] = cmap.New()
	}
	return table
}

// setUnexported sets sys's unexported field name to v, if sys has such a
// field of v's type.
func setUnexported[T any](sys *actor.ActorSystem, name string, v T) bool {
	f := reflect.ValueOf(sys).Elem().FieldByName(name)
	if !f.IsValid() || f.Type() != reflect.TypeFor[T]() {
		return false
	}
	*(*T)(unsafe.Pointer(f.UnsafeAddr())) = v
	return true
}
