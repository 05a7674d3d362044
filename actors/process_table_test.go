package actors

import (
	"runtime"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/protoactor/actor"
)

// TestNewSystemKeepsItsBuiltInProcesses: the processes the actor system
// registered while it was built are found in the small table, and an
// actor spawned afterwards answers through it.
func TestNewSystemKeepsItsBuiltInProcesses(t *testing.T) {
	sys := NewSystem(nil)
	defer sys.Shutdown()
	if got := len(sys.ProcessRegistry.LocalPIDs.LocalPIDs); got != processTableBuckets {
		t.Fatalf("process table has %d maps, want %d", got, processTableBuckets)
	}
	for _, id := range []string{"eventstream", "deadletter"} {
		if p, ok := sys.ProcessRegistry.GetLocal(id); !ok || p == nil {
			t.Errorf("%s is not in the process table", id)
		}
	}
	echo := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(string); ok {
			c.Respond(s)
		}
	}))
	defer sys.Root.Stop(echo)
	got, err := sys.Root.RequestFuture(echo, "ping", 10*time.Second).Result()
	if err != nil || got != "ping" {
		t.Fatalf("request through the small table: %v, %v", got, err)
	}
}

// TestNewSystemHeapIsSmall: an actor system costs the engine a few
// kilobytes, not protoactor's 2.8 MB table of 32,768 maps (spread over a
// few hundred sessions, that was most of an idle session's heap).
func TestNewSystemHeapIsSmall(t *testing.T) {
	before := liveHeap()
	sys := NewSystem(nil)
	grew := liveHeap() - before
	runtime.KeepAlive(sys)
	sys.Shutdown()
	if grew > 256<<10 {
		t.Fatalf("NewSystem holds %d B of heap, over 256 KiB", grew)
	}
}

func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
