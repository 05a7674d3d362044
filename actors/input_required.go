package actors

import "github.com/mcpengine/mcpengine/messages"

// MaxInputRounds bounds the input_required answers the engine follows for
// one call of a 2026-07-28 session (input_rounds.go): a server that asks
// for input once more after this many rounds fails the call with an
// *InputRequiredError.
const MaxInputRounds = 8

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
