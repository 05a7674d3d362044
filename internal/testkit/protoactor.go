package testkit

import "go.uber.org/goleak"

// ProtoactorThrottleWaits are goroutines protoactor-go may leave after
// every cluster member of a test has closed: its throttles
// (actor/throttler.go) start a goroutine that waits out one throttle
// period on a ticker and then ends, and nothing can stop it early. They
// are named as the compiler names them once the throttle constructor is
// inlined into its callers: the gossiper's, the gossip actor's and the
// dead letter process's (in cluster members, and in the actor system
// every engine of a process shares, actors.System).
var ProtoactorThrottleWaits = []goleak.Option{
	goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.(*Gossiper).StartGossiping.NewThrottle.func3.1"),
	goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.NewGossipActor.NewThrottleWithLogger.func2.1"),
	goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
}
