package cluster

import (
	"testing"

	"go.uber.org/goleak"
)

// protoactor's throttles (actor/throttler.go) start a goroutine that waits
// out one throttle period on a ticker and then ends; nothing can stop it
// early, so one may still be waiting when the last member has closed.
// They are named here as the compiler names them once the throttle
// constructor is inlined into its callers: the gossiper's, the gossip
// actor's and the dead letter process's.
var throttleWaits = []goleak.Option{
	goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.(*Gossiper).StartGossiping.NewThrottle.func3.1"),
	goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.NewGossipActor.NewThrottleWithLogger.func2.1"),
	goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, throttleWaits...)
}
