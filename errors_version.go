package mcpengine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// Errors of protocol negotiation and of 2026-07-28's multi round-trip
// requests.
var (
	// ErrNotInProtocolVersion matches a request refused before sending
	// because its method does not exist in the negotiated version (ping,
	// resources/subscribe, logging/setLevel in 2026-07-28).
	ErrNotInProtocolVersion error = &sentinel{"mcpengine: method does not exist in the negotiated protocol version", "not_in_protocol_version"}
	// ErrInputRequired matches a request a 2026-07-28 server still
	// answered with input_required after MaxInputRounds rounds of input
	// (InputRequiredError).
	ErrInputRequired error = &sentinel{"mcpengine: the server still requires input after the round limit", "input_required"}
	// ErrNoInputHandler matches an InputRequestError for an input request
	// the engine has no handler for.
	ErrNoInputHandler error = &sentinel{"mcpengine: no handler installed for this input request", "input_request"}
)

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
// and the server does not speak that era. Permanent.
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

// MethodNotInVersionError reports a request refused before sending because
// its method does not exist in the negotiated version (see
// ErrNotInProtocolVersion).
type MethodNotInVersionError struct {
	Method, Version string
}

func (e *MethodNotInVersionError) Error() string {
	return fmt.Sprintf("mcpengine: %s does not exist in protocol version %s", e.Method, e.Version)
}

// Is matches ErrNotInProtocolVersion.
func (e *MethodNotInVersionError) Is(target error) bool { return target == ErrNotInProtocolVersion }

// SafeToRetry: the request never left the engine.
func (e *MethodNotInVersionError) SafeToRetry() bool { return true }

// ErrorType is the error's class (error.type in telemetry).
func (e *MethodNotInVersionError) ErrorType() string { return "not_in_protocol_version" }

// InputRequiredError is returned for a request a 2026-07-28 server
// answered with resultType "input_required" once more after
// MaxInputRounds rounds of input (see ErrInputRequired).
type InputRequiredError struct {
	Method string
	// Rounds is how many rounds of input were answered before giving up.
	Rounds int
	// Requests are the methods of the last answer's input requests, by key.
	Requests map[string]string
	// Result is the server's last answer as it came.
	Result messages.RawMessage
}

func (e *InputRequiredError) Error() string {
	keys := make([]string, 0, len(e.Requests))
	for k, m := range e.Requests {
		keys = append(keys, k+": "+m)
	}
	sort.Strings(keys)
	return fmt.Sprintf("mcpengine: %s still needs input after %d rounds (the limit): %s",
		e.Method, e.Rounds, strings.Join(keys, ", "))
}

// Is matches ErrInputRequired.
func (e *InputRequiredError) Is(target error) bool { return target == ErrInputRequired }

// ErrorType is the error's class (error.type in telemetry).
func (e *InputRequiredError) ErrorType() string { return "input_required" }

// InputRequestError: an input request of an input_required answer could
// not be answered: the engine has no handler for it (Err matches
// ErrNoInputHandler) or the handler failed (Err is its error). The
// request is not sent again: the specification has no error answer for
// an input request, and the server is not waiting for one.
type InputRequestError struct {
	// Method is the call's method; Key and Request name the input request.
	Method, Key, Request string
	Err                  error
}

func (e *InputRequestError) Error() string {
	return fmt.Sprintf("mcpengine: %s: input request %q (%s): %v", e.Method, e.Key, e.Request, e.Err)
}

// Unwrap gives the handler's error, or ErrNoInputHandler.
func (e *InputRequestError) Unwrap() error { return e.Err }

// ErrorType is the error's class (error.type in telemetry).
func (e *InputRequestError) ErrorType() string { return "input_request" }
