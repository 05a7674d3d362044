package transport

import "github.com/mcpengine/mcpengine/messages"

// CallerRunner is a connection that can send a request on the goroutine of
// the caller waiting for its answer (Streamable HTTP: the POST and the
// reading of its answer), instead of handing it to a goroutine of its own
// and having that goroutine wake the caller: raw HTTP clients do the
// round trip on the caller's goroutine, and each hand-off costs a
// goroutine switch, often a thread wake-up, per call.
//
// The session uses it only for a caller that waits (never for an
// asynchronous call, whose caller must not block on the network):
//
//   - HoldRequest(id), before the frame holding request id reaches
//     WriteFrames: the connection keeps that request's POST, made when the
//     frame is written, for RunRequest instead of starting it;
//   - then exactly one of RunRequest(id), by the caller, or
//     ReleaseRequest(id), when that caller will not run it after all.
//
// None of the methods may call back into the session synchronously except
// through deliver, which RunRequest calls for the answer as the
// connection's own goroutines would.
type CallerRunner interface {
	HoldRequest(id messages.ID)
	// RunRequest sends the held request and handles its answer on the
	// calling goroutine; it returns once the answer was delivered, or the
	// request failed (a synthesized answer delivered), was aborted, or the
	// connection closed. It reports false, having run nothing, when the
	// request's frame has not reached WriteFrames yet or cannot start
	// now (a notification before it still runs): then the connection
	// sends it on a goroutine of its own, as any other.
	RunRequest(id messages.ID) bool
	// ReleaseRequest sends a held request as any other.
	ReleaseRequest(id messages.ID)
	// AbortRequest ends the POST of a held request whose call ended
	// without its answer (its deadline, its caller's ctx, the session's
	// close): its caller must not stay blocked in it. The answer, if one
	// arrives, is dropped, and none is synthesized. Requests that are not
	// held are left alone.
	AbortRequest(id messages.ID)
}
