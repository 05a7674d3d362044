// Package demoserver is an MCP server for tests, demos and benchmarks, used
// like net/http/httptest: create one with New, hand it connections with
// Serve (any transport.Conn, typically one end of memory.NewPipe) or run it
// on stdin/stdout with ServeStdio, and inspect what it saw with Stats and
// Await.
//
// It serves both protocol eras unless Options.Versions narrows it: the
// stateless 2026-07-28 (server/discover, per-request _meta, listen,
// input_required rounds) and the handshake versions 2024-11-05 through
// 2025-11-25: initialize (the client's version if accepted, else the
// newest accepted; Options.AnswerVersion overrides), ping, tools, resources
// (static, templated, subscriptions), prompts, completion and logging, and
// it sends sampling/createMessage, elicitation/create and roots/list to the
// client from the sample, elicit and roots tools. Every list is paginated
// with Options.PageSize and opaque cursors.
//
// # Tools
//
//	echo {text}               text content = text, structuredContent {"text"}
//	add {a, b}                the sum as text, structuredContent {"sum"}
//	sleep {ms}                waits; cancellable (then no response at all)
//	progress {steps, intervalMs}  notifications/progress to _meta.progressToken
//	fail {message}            an isError result
//	large {bytes}             one text block of that many bytes (up to 1 GiB)
//	sample {prompt}           sampling/createMessage round trip
//	elicit {message}          elicitation/create round trip (form mode)
//	roots {}                  roots/list round trip
//	log {level, message}      notifications/message if level >= logging/setLevel (default info)
//	notify {kind}             notifications/{tools|resources|prompts}/list_changed
//	                          (2026-07-28: on the listens that asked for it;
//	                          kind listen_end ends every listen with its result)
//	touch {uri}               notifications/resources/updated if subscribed
//	                          (2026-07-28: on the listens subscribed to uri)
//
// In 2026-07-28 subscriptions/listen (listen.go) is a slow request that
// stays open: it acknowledges its filter, then carries those
// notifications, each naming it in _meta.
// Input errors in arguments are isError results; an unknown tool is a
// -32602 error.
//
// # Concurrency and cancellation
//
// Each connection has one reader (the goroutine in Serve), one writer and,
// for every slow request, one handler goroutine. Quick requests (ping,
// lists, reads, echo, add, fail, log, notify, touch) are handled inline on
// the reader; slow ones (sleep, progress, large, sample, elicit, roots, and
// every request when Options.Delay is set) run concurrently, so sleep never
// delays echo. Only slow requests can be cancelled: notifications/cancelled
// for one stops it, nothing is sent for it, and Stats.CancelledCalls
// counts it (Stats.Cancellations counts every cancellation received). All
// output goes through the writer, which hands everything queued to one
// WriteFrames call, so a burst of responses costs one write. Frames written
// by one handler keep their order (notifications before the response).
//
// Requests sent in a JSON-RPC batch are answered with one batch array.
//
// # Faults
//
// Options.AnswerVersion, Delay, ExitAfter, CloseAfter, GarbageEvery and
// StderrSpam make the server misbehave on purpose, for the engine's
// robustness tests; see Options.
package demoserver
