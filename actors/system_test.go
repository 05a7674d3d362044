package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/protoactor/actor"
)

// TestNewSystemWorks: the engine's actor system spawns, answers, publishes on its
// event stream and stops.
func TestNewSystemWorks(t *testing.T) {
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
