// Package legacysse implements the client side of the HTTP+SSE transport
// of MCP protocol version 2024-11-05, which Streamable HTTP replaced but
// which many deployed servers still speak.
//
// The client opens a long-lived GET event stream at the server's SSE URL.
// The server's first event, "endpoint", names the URL to POST messages to
// (usually the same host with a session id in the query); every later
// "message" event carries one JSON-RPC message from the server. Each frame
// the session writes becomes one POST to that endpoint, which the server
// acknowledges with 202 Accepted; the answers arrive on the stream.
//
// # Security
//
// The endpoint comes from the server, and every POST to it carries the
// configured headers, credentials included. An endpoint on another origin
// (scheme, host or port) would make the client send them wherever the
// server, or anyone who can inject into its stream, points. Dial refuses
// such an endpoint with *EndpointOriginError.
//
// # Goroutines
//
// One reads the stream for the connection's lifetime (it delivers frames
// through transport.RequestConn's Start callback, decoded once); one more runs per POST in flight.
// Close cancels all of them and waits for them.
//
// # Failure
//
// The stream is the connection: when it ends or breaks, the connection
// fails (Start's fail callback) and the session reconnects under its
// backoff. A POST that fails without killing the stream (a 5xx, a refused
// request) fails only its request: the transport delivers an error answer
// with code transport.CodeRequestFailed for it. A 404 means the server
// forgot the session named in the endpoint URL: transport.ErrSessionExpired.
package legacysse
