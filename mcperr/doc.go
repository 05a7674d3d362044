// Package mcperr declares, once, the errors a session of the engine
// returns: the sentinels (match them with errors.Is) and the typed errors
// (errors.As), with their messages, their error.type classes for
// telemetry (ErrorType) and the marks supervisor.Classify reads
// (Budgeted, Permanent).
//
// The session actors (package actors) construct these values and the root
// package mcpengine re-exports every one of them under the same name
// (type aliases and variables that hold the same pointers), so
// errors.Is(err, mcpengine.ErrTimeout) and errors.As(err,
// new(*mcpengine.TimeoutError)) match what the actors produced without any
// translation. Embedders use the root's names; this package exists so that
// adding an error means editing one file. The comments here name the
// root's API as the embedder sees it (Config.MaxInFlight, FailFast,
// Stats.InvalidFrames, MaxInputRounds are mcpengine's).
//
// It imports only leaf packages of the module (messages, transport,
// oauth), never actors or the root, so both can import it.
package mcperr
