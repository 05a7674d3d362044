package distributed

import (
	"context"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/assert"
)

// The coordinator takes the members that offer the load worker kind, and
// hears which of them left.
func TestMembershipFollowsTopology(t *testing.T) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(quietLogs))
	defer sys.Shutdown()
	m := WatchMembership(sys)
	defer m.Stop()
	w1 := &cluster.Member{Host: "10.0.0.1", Port: 7400, Kinds: []string{Kind}}
	w2 := &cluster.Member{Host: "10.0.0.2", Port: 7400, Kinds: []string{Kind, "other"}}
	coord := &cluster.Member{Host: "10.0.0.9", Port: 7400}

	waited := make(chan []string, 1)
	// Owner: the test; exits when two workers are members.
	go func() { waited <- m.Wait(context.Background(), 2) }()
	sys.EventStream.Publish(&cluster.ClusterTopology{Members: []*cluster.Member{coord, w1}})
	sys.EventStream.Publish(&cluster.ClusterTopology{Members: []*cluster.Member{coord, w2, w1}})
	assert.Equal(t, []string{"10.0.0.1:7400", "10.0.0.2:7400"}, <-waited)

	sys.EventStream.Publish(&cluster.ClusterTopology{Members: []*cluster.Member{coord, w2},
		Left: []*cluster.Member{w1}})
	assert.Equal(t, "10.0.0.1:7400", <-m.Left())
	assert.Equal(t, []string{"10.0.0.2:7400"}, m.Members())
}
