package mcperr

import (
	"fmt"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// Errors of protocol negotiation.

// VersionMismatchError reports a server answering initialize with a
// protocol version the engine cannot speak. It is retried under the
// restart budget (Config.RestartBudget), then the session closes with it.
type VersionMismatchError struct {
	Offered  string
	Answered string
}

func (e *VersionMismatchError) Error() string {
	return fmt.Sprintf("mcpengine: protocol version mismatch: offered %s, server answered %q", e.Offered, e.Answered)
}

// Is matches ErrVersionMismatch.
func (e *VersionMismatchError) Is(target error) bool { return target == ErrVersionMismatch }

// Budgeted marks the error for supervisor.Classify: retried under the
// restart budget.
func (e *VersionMismatchError) Budgeted() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *VersionMismatchError) ErrorType() string { return "version_mismatch" }

// NoCommonVersionError: the server speaks none of the engine's versions
// (or not the pinned one). Permanent: the session closes, since
// reconnecting cannot change either side's list.
type NoCommonVersionError struct {
	// Requested is the version the engine asked for; Supported the
	// server's list.
	Requested string
	Supported []string
	Cause     error
}

func (e *NoCommonVersionError) Error() string {
	return fmt.Sprintf("mcpengine: no protocol version in common: asked for %s, the server supports %s (the engine speaks %s)",
		e.Requested, strings.Join(e.Supported, ", "), strings.Join(messages.KnownVersions, ", "))
}

// Unwrap gives ErrVersionMismatch and the cause, if any.
func (e *NoCommonVersionError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrVersionMismatch}
	}
	return []error{ErrVersionMismatch, e.Cause}
}

// Permanent marks the error for supervisor.Classify: never retried.
func (e *NoCommonVersionError) Permanent() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *NoCommonVersionError) ErrorType() string { return "version_mismatch" }

// NotModernError: a version of the stateless era (2026-07-28) was pinned
// and the server does not speak that era (its answer to server/discover
// was not a modern one). Permanent.
type NotModernError struct {
	Pinned string
	Cause  error
}

func (e *NotModernError) Error() string {
	return fmt.Sprintf("mcpengine: protocol %s was pinned and the server does not answer server/discover in it: %v", e.Pinned, e.Cause)
}

// Unwrap gives ErrVersionMismatch and the cause.
func (e *NotModernError) Unwrap() []error { return []error{ErrVersionMismatch, e.Cause} }

// Permanent marks the error for supervisor.Classify: never retried.
func (e *NotModernError) Permanent() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *NotModernError) ErrorType() string { return "version_mismatch" }
