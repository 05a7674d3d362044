package mcperr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// Errors of 2026-07-28's multi round-trip requests.

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
