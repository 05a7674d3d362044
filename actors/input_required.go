package actors

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// ErrInputRequired: a 2026-07-28 server answered with an input_required
// result, whose round trips (answering its input requests and sending the
// request again) the engine does not run yet.
var ErrInputRequired error = &sentinel{"mcpengine: the server requires input the engine does not provide yet", "input_required"}

// InputRequiredError is returned for a request a 2026-07-28 server
// answered with resultType "input_required", rather than handing the
// caller that answer as if it were the result it asked for. Result is the
// server's answer as it came, for a caller that runs the round trip
// itself.
type InputRequiredError struct {
	Method string
	// Requests are the methods of the input requests, by key.
	Requests map[string]string
	Result   messages.RawMessage
}

func (e *InputRequiredError) Error() string {
	keys := make([]string, 0, len(e.Requests))
	for k, m := range e.Requests {
		keys = append(keys, k+": "+m)
	}
	sort.Strings(keys)
	return fmt.Sprintf("mcpengine: %s needs input the engine does not provide yet (input_required round trips are not implemented): %s",
		e.Method, strings.Join(keys, ", "))
}
func (e *InputRequiredError) Is(target error) bool { return target == ErrInputRequired }

// ErrorType is the error's error.type in telemetry.
func (e *InputRequiredError) ErrorType() string { return "input_required" }

// inputRequired returns the error for a caller's request that a stateless
// session's server answered with input_required, or nil. A legacy session
// pays one atomic load; a modern one a byte scan of the result.
func (a *sessionActor) inputRequired(c *Call, result messages.RawMessage) error {
	if c.onDone != nil {
		return nil
	}
	neg := a.sh.negotiated.Load()
	if neg == nil || !neg.Modern() || !messages.IsInputRequired(result) {
		return nil
	}
	e := &InputRequiredError{Method: c.Method, Requests: map[string]string{}, Result: result}
	var r messages.InputRequiredResult
	if messages.Unmarshal(result, &r) == nil {
		for k, req := range r.InputRequests {
			e.Requests[k] = req.Method
		}
	}
	return e
}
