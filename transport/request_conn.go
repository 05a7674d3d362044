package transport

import (
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
)

// RequestConn is a connection that sends each message as an HTTP request
// of its own (Streamable HTTP's POST per message, the POSTs of legacy
// HTTP+SSE) and hands what it receives to the session by callback, so that
// an idle session holds no reader goroutine. When a Conn implements
// RequestConn the session calls Start once, sends with Send, and never
// calls ReadFrame or WriteFrames.
//
// A request transport takes messages, not bytes: each comes with what the
// session knows of it (Message), so the transport never decodes a frame
// the session just encoded.
type RequestConn interface {
	Conn

	// Start begins delivery. deliver is called once per received frame
	// (one JSON-RPC message or batch array, without framing), decoded by
	// the connection (see Inbound for who owns what), possibly from
	// several goroutines at once. fail is called at most once, when the
	// connection is unusable for good (the server closed it, the session
	// expired, a stream frame exceeded the cap); no deliver starts after
	// fail. Neither is called after Close returns. Where message
	// boundaries survive a failure (an oversized HTTP answer to one
	// request), the transport fails only that request instead, with a
	// synthesized CodeRequestFailed answer.
	Start(deliver func(in *Inbound), fail func(err error))

	// Send hands the messages over in order and returns without waiting
	// for the network: each is sent on a goroutine of the connection's, or
	// kept for its caller (HoldRequest). A request that fails later comes
	// back as a synthesized CodeRequestFailed answer, or through Start's
	// fail when the whole connection is gone. The frames may be reused
	// once Send returns. It fails only after Close (ErrClosed) or after
	// the connection failed (that error). Called by one goroutine at a
	// time (the session's writer).
	Send(msgs ...Message) error

	// HoldRequest, RunRequest, ReleaseRequest and AbortRequest let a caller
	// that waits for its answer run its own round trip (the POST and the
	// reading of its answer) on its goroutine, instead of handing it to a
	// goroutine of the connection and having that goroutine wake it: raw
	// HTTP clients do the round trip on the caller's goroutine, and each
	// hand-off costs a goroutine switch, often a thread wake-up, per call.
	// The session uses them only for a caller that waits (never for an
	// asynchronous call, whose caller must not block on the network):
	//
	//   - HoldRequest(id), before the message of request id reaches Send:
	//     the connection keeps that request's round trip for RunRequest
	//     instead of starting it, and reports true; false when it cannot
	//     (a transport whose answers do not come back on the request, as
	//     legacy HTTP+SSE's; a connection closed or falling back): then
	//     the request goes as any other, and nothing follows;
	//   - after true, exactly one of RunRequest(id), by the caller, or
	//     ReleaseRequest(id), when that caller will not run it after all.
	//
	// None of them may call back into the session synchronously except
	// through deliver, which RunRequest calls for the answer as the
	// connection's own goroutines would.
	HoldRequest(id messages.ID) bool
	// RunRequest sends the held request and handles its answer on the
	// calling goroutine; it returns once the answer was delivered, or the
	// request failed (a synthesized answer delivered), was aborted, or the
	// connection closed. It reports false, having run nothing, when the
	// request has not reached Send yet or cannot start now (a notification
	// before it still runs): then the connection sends it on a goroutine
	// of its own, as any other.
	RunRequest(id messages.ID) bool
	// ReleaseRequest sends a held request as any other.
	ReleaseRequest(id messages.ID)
	// AbortRequest ends the round trip of a held request whose call ended
	// without its answer (its deadline, its caller's ctx, the session's
	// close): its caller must not stay blocked in it. The answer, if one
	// arrives, is dropped, and none is synthesized. Requests that are not
	// held are left alone.
	AbortRequest(id messages.ID)

	// Negotiated tells the connection the handshake's outcome; the session
	// calls it once the handshake succeeded, and again when Listen
	// changes. It must not block.
	Negotiated(info SessionInfo)
	// SessionID returns the server-assigned session id (Streamable HTTP's
	// Mcp-Session-Id; telemetry reports it as mcp.session.id), "" until
	// the server assigned one or where there is none. Safe from any
	// goroutine.
	SessionID() string
}

// Message is one outgoing JSON-RPC message as the session built it: its
// encoded frame and, beside it, what the session knows of it, so that a
// request transport needs no decoding of its own.
type Message struct {
	// Frame is the encoded message; the session reuses it once Send
	// returns.
	Frame []byte
	// Kind is a request, a notification or a response.
	Kind messages.Kind
	// ID is a request's or a response's id.
	ID messages.ID
	// Method is a request's or a notification's method.
	Method string
	// Params are a request's params as the caller encoded them, without
	// the 2026-07-28 per-request _meta the session splices into Frame
	// (Version says whether it did); they must not change while the
	// request is in flight (a header value may alias them).
	Params messages.RawMessage
	// Version is the 2026-07-28 protocol version of a request whose _meta
	// the session spliced into Frame (its MCP-Protocol-Version header);
	// "" otherwise (a request that carries its own _meta in Params, or one
	// of an earlier era).
	Version string
	// Cancels is the request a notifications/cancelled names.
	Cancels messages.ID
	// Header holds a request's own HTTP headers, from its caller, added
	// to its HTTP request (the transport's own headers win).
	Header http.Header
}
