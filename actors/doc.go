// Package actors holds the engine's actors: one session actor per MCP
// server connection (state machine, pending-request map, id allocation,
// negotiated facts, subscriptions), its writer actor (coalesces queued
// frames into few writes), its reader goroutine (decodes envelopes off the
// actor), and the registry actor that parents every session so protoactor's
// supervision can restart a session whose Receive panicked.
//
// Only the session actor touches session state. Callers, the reader, timers
// and handler goroutines all talk to it by posting the small messages
// declared in messages.go.
//
// Every post goes through mailboxScheduler.post, which names the goroutine
// that runs the batch it wakes (onCaller, onReader, onWorker;
// mailbox_scheduler.go). Batches run on the engine's WorkerPool or on the
// poster itself; user callbacks run on each session's callbackQueue. The
// state a session keeps across actor instances (Shared) is grouped by who
// writes it: facts, connSlots, watchers, actorOnly.
//
// This package is internal to the engine: it exports only what the root
// package (github.com/mcpengine/mcpengine) needs, and its API carries no
// compatibility promise; it may change in any release. The errors and
// states it returns are declared once, in the leaf packages mcperr and
// mcpstate, and reach embedders as they are through the root package,
// which re-exports them under the same names.
package actors
