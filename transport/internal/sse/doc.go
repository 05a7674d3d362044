// Package sse parses a text/event-stream body (the Server-Sent Events wire
// format of the WHATWG HTML standard) into events, as the HTTP transports
// receive it: from a POST answer, a standalone GET stream, or the legacy
// HTTP+SSE stream.
//
// The parser follows the standard's interpretation rules: lines end in CRLF,
// LF or a lone CR (also when the CR and LF arrive in different reads); a
// leading UTF-8 byte order mark is skipped; lines starting with ':' are
// comments; "data" lines are joined with '\n'; "id" sets the last event ID
// (ignored when it holds a NUL); "retry" sets the reconnection time when its
// value is all ASCII digits; an event is dispatched at a blank line, and an
// event cut off by the end of the stream is discarded.
//
// Unlike a browser it caps what one event may hold, so that a runaway or
// hostile server cannot make the client buffer without bound: a data
// payload, or any single line, longer than the cap fails the stream with
// *TooLargeError as soon as the cap is passed, before the rest arrives.
package sse
