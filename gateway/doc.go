// Package gateway puts one HTTP endpoint in front of many MCP servers,
// with policy. It holds a pool of supervised engine sessions per server
// (stdio subprocesses or remote URLs, reconnected by the engine when they
// fail) and serves, on one http.Handler:
//
//   - PathMCP, a standard MCP Streamable HTTP endpoint aggregating every
//     server: their tools and prompts under a per-server prefix
//     ("files__read_file"), their resources and templates (URIs are not
//     renamed), list_changed propagated, progress and cancellation
//     forwarded both ways, and the servers' sampling, elicitation and
//     roots requests forwarded to the gateway client that caused them;
//     its event streams are resumable (event ids, Last-Event-ID), and it
//     serves clients of the stateless era (2026-07-28: server/discover,
//     per-request _meta, no session, subscriptions/listen, server
//     requests as input_required) beside those of the handshake era;
//   - PathSSE and PathMessage, the same client sessions over the legacy
//     HTTP+SSE transport (2024-11-05);
//   - PathRoute, the routing protocol: an ordinary JSON-RPC message with a
//     "server_id" member, forwarded to that server, its answer passed
//     through with the server's bytes;
//   - PathHealth (every upstream session's state) and PathMetrics
//     (Prometheus).
//
// # Policy
//
// A server's policy applies to every client, a client's to all it does,
// a client's per-server policy to that pair; a request must pass each of
// them (see Policy). Denied requests get a JSON-RPC error (CodeDenied)
// that names the policy and the rule; hidden tools, resources and prompts
// are left out of lists. Rate limits are token buckets
// (golang.org/x/time/rate) held per policy; maxToolTime cancels a tool
// call on the server; maxResourceBytes refuses a resource read whose
// contents are too large. Every tool call is written to the audit log
// (who, server, tool, duration, outcome; the arguments only when asked).
//
// # Who may connect
//
// With Clients configured, every request needs one of their bearer tokens
// and gets that client's policy; a session of the aggregated endpoint
// stays bound to the client that opened it. Without, only loopback peers
// are let in. Listen refuses a non-loopback address unless allowed, and
// even then without client tokens.
//
// # Pools
//
// A server's requests go to the least-loaded ready session of its pool;
// sessions in backoff or reconnecting are skipped. A server with no ready
// session fails requests with CodeUnavailable ("Failed to connect to
// server") at once, or after ReadyWait while one is reconnecting, and
// serves them again as soon as one is back.
//
// With Config.Cluster the gateway is a member of an engine cluster
// (package cluster) and each pool slot is a cluster session named
// SERVER/pool-N on every gateway: gateways behind one load balancer share
// one set of upstream sessions, each held by one member; a watcher per
// slot brings its state, initialize result and notifications to every
// gateway (docs/GATEWAY.md, "Several gateways").
//
// # Server requests
//
// Upstream sessions are shared by the gateway's clients, while a server's
// sampling, elicitation and roots requests are meant for the one client
// on whose behalf it works. The gateway sends such a request to the one
// client with requests in flight on that session; when requests of
// several clients are in flight there it refuses rather than guess (and,
// to make that rare, gives the requests of clients that take server
// requests a session no other client is using when the pool has one).
//
// # Goroutines
//
// The gateway starts none per client session: HTTP handlers do the work,
// idle sessions end by timer. A POST carrying several requests, or one
// answered with an event stream, handles each request on a goroutine of
// its own that the handler waits for. Listen starts the http.Server's.
package gateway
