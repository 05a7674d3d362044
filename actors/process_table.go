package actors

import (
	"github.com/mcpengine/mcpengine/internal/protoactor/actor"
)

// processTableBuckets is how many concurrent maps the actor system's
// process table is split into. protoactor builds 1,024, each of 32 locked
// shards: 2.8 MB per actor system, which an engine holding a few hundred
// sessions pays as ~14 KiB per session, and a map group per process while
// the shards are nearly empty. One map is 32 locked shards, still more
// locks than the table is contended for: it is written when a process is
// spawned or stopped, and a Send finds its process through the PID, which
// keeps it after the first lookup. The table grows with the sessions, not
// ahead of them.
const processTableBuckets = 1

// shrinkProcessTable replaces sys's process table with one of
// processTableBuckets maps, carrying over the processes the system
// registered while it was built (the event stream, dead letters): for the
// systems NewActorSystem builds, when buildSystem cannot. It must
// run before sys is used by anyone else: the swap is not synchronised.
func shrinkProcessTable(sys *actor.ActorSystem) {
	old := sys.ProcessRegistry.LocalPIDs
	table := newProcessTable()
	for _, bucket := range old.LocalPIDs {
		bucket.IterCb(func(id string, process any) {
			table.GetBucket(id).Set(id, process)
		})
	}
	sys.ProcessRegistry.LocalPIDs = table
}
