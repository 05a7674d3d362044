// Package cluster runs engine processes as members of one Proto.Actor
// cluster (github.com/asynkron/protoactor-go: its remote, cluster and
// disthash identity lookup; no membership or RPC of its own) and places
// named MCP sessions on them as virtual actors.
//
// A member is started with Start and leaves with Close. Membership comes
// from a cluster provider: the automanaged provider for a static list of
// hosts (the default), or a Registry, protoactor's Consul, etcd or
// Kubernetes provider, each in its own package under cluster/provider so
// that this package links none of their clients. Every member offers the
// session kind (SessionKind) and any kind a caller adds in Config.Kinds.
//
// A session is named by the server it talks to (a key of Config.Servers,
// the same table on every member) and a session name. Its identity decides
// the one member that holds it; Member.Session returns a handle that
// reaches it from any member. When its member dies, the next call
// activates it on another member, which connects it again; calls that
// were in flight on the dead member fail with mcpengine.ErrConnectionLost.
//
// A call may carry progress and cancellation to the owner and have the
// server's requests made while it runs answered by the calling member
// (RemoteSession.CallWith, Config.ServerRequests); a Watcher follows a
// session's state, initialize result and notifications wherever it is
// owned. The gateway's cluster mode is built on them.
//
// The root package mcpengine does not import this package, so an embedder
// that holds sessions on one host links no remote or gRPC code
// (deps_test.go in the root checks it). docs/CLUSTER.md tells how to run
// members on several hosts.
package cluster
