package actors

import (
	"log/slog"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/protoactor/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// processIDs lists the ids in sys's process table.
func processIDs(sys *actor.ActorSystem) []string {
	var ids []string
	for _, bucket := range sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		bucket.IterCb(func(id string, _ any) { ids = append(ids, id) })
	}
	sort.Strings(ids)
	return ids
}

// TestBuiltSystemMatchesProtoactors: buildSystem gives what
// NewActorSystemWithConfig gives for the same config (every field set,
// of the same type; the same processes registered; the same address and
// logger), so a protoactor upgrade that changes its constructor fails here
// rather than in an engine.
func TestBuiltSystemMatchesProtoactors(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	config := actor.Configure(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
	built := buildSystem(config)
	require.NotNil(t, built, "ActorSystem's unexported fields are not what buildSystem sets")
	defer built.Shutdown()
	ref := actor.NewActorSystemWithConfig(config)
	defer ref.Shutdown()

	bv, rv := reflect.ValueOf(built).Elem(), reflect.ValueOf(ref).Elem()
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		assert.Equal(t, rv.Field(i).IsZero(), bv.Field(i).IsZero(), "field %s set in one system only", name)
	}
	assert.Same(t, ref.Config, built.Config)
	assert.Same(t, ref.Logger(), built.Logger())
	assert.Equal(t, ref.Address(), built.Address())
	assert.Equal(t, processIDs(ref), processIDs(built))
	assert.Len(t, built.ProcessRegistry.LocalPIDs.LocalPIDs, processTableBuckets)
	metrics := actor.NewMetrics(ref, nil).ExtensionID()
	assert.NotNil(t, ref.Extensions.Get(metrics))
	assert.NotNil(t, built.Extensions.Get(metrics))
}

// TestBuiltSystemWorks: a built system spawns, answers, publishes on its
// event stream and stops.
func TestBuiltSystemWorks(t *testing.T) {
	sys := NewSystem(nil)
	got := make(chan any, 1)
	sub := sys.EventStream.Subscribe(func(evt any) {
		if s, ok := evt.(string); ok {
			got <- s
		}
	})
	defer sys.EventStream.Unsubscribe(sub)
	sys.EventStream.Publish("published")
	assert.Equal(t, "published", <-got)

	echo := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(string); ok {
			c.Respond(s)
		}
	}))
	answer, err := sys.Root.RequestFuture(echo, "ping", 10*time.Second).Result()
	require.NoError(t, err)
	assert.Equal(t, "ping", answer)
	require.NoError(t, sys.Root.StopFuture(echo).Wait())

	assert.False(t, sys.IsStopped())
	sys.Shutdown()
	assert.True(t, sys.IsStopped())
}
