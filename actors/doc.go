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
package actors
