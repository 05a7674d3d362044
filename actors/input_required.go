package actors

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// MaxInputRounds bounds the input_required answers the engine follows for
// one call of a 2026-07-28 session (input_rounds.go): a server that asks
// for input once more after this many rounds fails the call with an
// *InputRequiredError.
const MaxInputRounds = 8

// ErrInputRequired: a 2026-07-28 server still answered input_required
// after MaxInputRounds rounds of input.
var ErrInputRequired error = &sentinel{"mcpengine: the server still requires input after the round limit", "input_required"}

// ErrNoInputHandler: a server's input request names a kind the engine has
// no handler for (no Sampling, Elicitation, Roots or RootsHandler
// installed for it, or a method that is not an input request).
var ErrNoInputHandler error = &sentinel{"mcpengine: no handler installed for this input request", "input_request"}

// InputRequiredError is returned for a request a 2026-07-28 server
// answered with resultType "input_required" once more after MaxInputRounds
// rounds of input. Result is the server's last answer as it came.
type InputRequiredError struct {
	Method string
	// Rounds is how many rounds of input were answered before giving up.
	Rounds int
	// Requests are the methods of the last answer's input requests, by key.
	Requests map[string]string
	Result   messages.RawMessage
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
func (e *InputRequiredError) Is(target error) bool { return target == ErrInputRequired }

// ErrorType is the error's error.type in telemetry.
func (e *InputRequiredError) ErrorType() string { return "input_required" }

// InputRequestError: an input request of an input_required answer could
// not be answered: the engine has no handler for it (Err matches
// ErrNoInputHandler) or the handler failed (Err is its error). The
// request is not sent again: the specification has no error answer for an
// input request, and the server is not waiting for one.
type InputRequestError struct {
	// Method is the call's method; Key and Request name the input request.
	Method, Key, Request string
	Err                  error
}

func (e *InputRequestError) Error() string {
	return fmt.Sprintf("mcpengine: %s: input request %q (%s): %v", e.Method, e.Key, e.Request, e.Err)
}
func (e *InputRequestError) Unwrap() error { return e.Err }

// ErrorType is the error's error.type in telemetry.
func (e *InputRequestError) ErrorType() string { return "input_request" }

// inputRequired reports whether a stateless session's server answered a
// caller's request with input_required. A legacy session pays one atomic
// load; a modern one a byte scan of the result.
func (a *sessionActor) inputRequired(c *Call, result messages.RawMessage) bool {
	if c.onDone != nil {
		return false
	}
	neg := a.sh.facts.negotiated.Load()
	return neg != nil && neg.Modern() && messages.IsInputRequired(result)
}
