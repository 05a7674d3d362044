// Package streamable implements the client side of MCP's Streamable HTTP
// transport (protocol versions 2025-03-26 and later): every message the
// client sends is one POST to the server's MCP endpoint, answered with a
// JSON body, an event stream, or 202 Accepted; an optional GET stream
// carries what the server says outside of request answers.
//
// # Goroutines and cost
//
// The connection is a transport.RequestConn: no goroutine waits for
// frames. Send hands each message to a goroutine that POSTs it, reads the
// answer (JSON or an event stream) and delivers what arrives, decoded once
// (transport.Inbound); it never waits on the network. What each message is
// (request, notification, cancellation, 2026-07-28 header values) comes
// from the session beside its frame (transport.Message): the frame is
// copied, never decoded.
// A goroutine whose request is done takes the connection's next frame if
// other requests still run, and ends otherwise. An idle session therefore
// costs no goroutine, unless the session asked to listen
// (transport.SessionInfo's Listen) and the server offers a standalone GET
// stream, which then has one reader goroutine.
//
// A request held for its caller (HoldRequest before its message is sent)
// is not started by Send but POSTed, and its answer read and delivered, on the
// caller's goroutine (RunRequest), which then waits for nothing else; an
// aborted one (AbortRequest) ends at once.
//
// # Order
//
// Requests run concurrently. A notification is a barrier: it has been
// accepted by the server (its POST answered) before any frame written
// after it is sent, so that notifications/initialized precedes the first
// request and a cancellation precedes what follows it.
//
// # Session and headers
//
// The Mcp-Session-Id the server assigns in its initialize answer is sent on
// every later request; the negotiated protocol version is sent as
// MCP-Protocol-Version (from 2025-03-26 on; the transport reads it from the
// initialize answer, and RequestConn.Negotiated confirms it). Close deletes
// the session on the server (DELETE, best effort, bounded by Close's
// context).
//
// # Protocol 2026-07-28
//
// A request whose params._meta carries io.modelcontextprotocol/protocolVersion
// (the stateless era) is sent with the headers that mirror its body:
// MCP-Protocol-Version from the _meta, Mcp-Method, and for tools/call,
// prompts/get and resources/read Mcp-Name (Base64 between =?base64? and ?=
// when not plain ASCII); never a session id. A 4xx answer with a JSON-RPC
// error body is that request's answer (unsupported version, missing client
// capability, header mismatch, unknown method), so the session sees the
// server's error; a 4xx without one fails the request with its status as
// below, which is how a server of the older eras shows itself. Once the
// negotiated version is of that era, a cancellation closes the request's
// answer stream and no notifications/cancelled is POSTed.
//
// # Failures
//
//   - 404 for a request that carried the session id: the server forgot the
//     session; the connection fails with transport.ErrSessionExpired.
//   - Any other failure of one request (a 5xx or 4xx status, a refused
//     connection, a timeout, an answer over the size cap, a stream that
//     ended and could not be resumed): that request gets an error answer
//     with code transport.CodeRequestFailed and a transport.RequestFailure
//     as data; the connection stays up. A failed notification or response
//     is logged.
//   - The GET stream never fails the connection: it is reopened with
//     backoff, and a server without one (405) is left alone.
//
// # Resumption
//
// When an event stream (a POST's answer, or the GET stream) breaks before
// it is done and the server gave its events ids, the transport waits the
// server's retry time and resumes with a GET carrying Last-Event-ID;
// replayed events are recognized by id and answers by request id, so
// nothing is delivered twice.
//
// # Falling back to HTTP+SSE
//
// With Dialer.FallbackToSSE, a server that refuses the initialize POST
// with 400, 404 or 405 is tried as a 2024-11-05 HTTP+SSE server at the
// same URL (package legacysse); the session above sees only the frames.
//
// Nothing the transport logs or returns holds a header value, the session
// id, or the URL's userinfo or query.
package streamable
