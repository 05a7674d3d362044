// Package mcpserver holds what every server side of MCP in this module
// needs whatever it serves: the demo server (demoserver) and the gateway's
// aggregated front endpoint (gateway) both stand on it.
//
//   - Outbound: the server's own requests to the client (sampling,
//     elicitation, roots) waiting for their answers, with ids, a timeout
//     and notifications/cancelled when the server gives up.
//   - Table: an endpoint's live sessions by id; closing it refuses new
//     ones and hands back the live ones to end.
//   - Lease: the HTTP requests in progress on a session, and the idle
//     timeout that ends it once none has come for a while.
//   - NewSessionID: Mcp-Session-Id values.
//   - NegotiateVersion: the version answered to initialize.
//   - EventLog, EventID, ParseEventID, AppendEvents: the events of one
//     resumable SSE stream, their ids ("stream-seq") and a bounded
//     history replayed to a client resuming with Last-Event-ID.
//   - Listen: a handler on a TCP listener with the module's timeouts.
//
// It knows no method beyond the protocol's plumbing: what a request does
// is the caller's business.
package mcpserver
