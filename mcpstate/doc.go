// Package mcpstate declares, once, what an embedder reads of where a
// session stands: its lifecycle State and the StateChange delivered to
// state watchers, and the ListenStatus of a 2026-07-28 session's
// subscriptions/listen.
//
// The session actors (package actors) keep and publish these values and
// the root package mcpengine re-exports every one under the same name
// (type aliases and constants), so nothing converts them on the way to
// the embedder. They live apart from the errors (package mcperr) because
// they are values a session reports, not failures; both are leaves that
// import only leaf packages of the module (messages), never actors or
// the root, so both can import them. Embedders use the root's names.
package mcpstate
