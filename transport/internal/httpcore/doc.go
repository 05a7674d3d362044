// Package httpcore holds what the Streamable HTTP and the legacy HTTP+SSE
// client transports share: the gate through which frames reach the session
// (Sink), the scheduler that turns written frames into concurrent POSTs
// while keeping notifications in order (Scheduler), the classification of
// outgoing frames (with the headers a 2026-07-28 request mirrors from its
// params), requests built without what each request would otherwise parse
// and copy again (NewPost, Do), and the answers a transport synthesizes
// for a request that failed below JSON-RPC, with reasons that never carry
// a secret.
package httpcore
