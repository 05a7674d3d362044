package actors

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
)

// Multi round-trip requests (2026-07-28). A server that needs the
// client's input answers a call with resultType "input_required" and a
// map of input requests (sampling/createMessage, elicitation/create,
// roots/list). The call then goes through rounds, all of them one Call
// (one future, one span, one deadline):
//
//	answer input_required ─► startInputRound: each input request to its handler
//	                         (the legacy era's: same goroutine and reply message)
//	every handler answered ─► sendAgain: the caller's params + inputResponses
//	                          + requestState, under a new id, through onCall
//	answer complete ───────► the call's result
//
// The exchange's state lives in a.rounds until the call finishes (finish
// ends it, whatever ended the call). While its handlers run the call is
// on neither the wire nor the queue: the sweep, a cancel and Close find it
// in a.rounds; a lost connection does not touch it (nothing of it is on
// the wire), and its next round waits in the queue for the next
// connection like any call.

// inputRounds is the state of one call's exchange, from its first
// input_required answer on.
type inputRounds struct {
	n         int                     // input_required answers so far
	state     string                  // the requestState to echo
	responses messages.InputResponses // this round's answers, by key
	waiting   int                     // handlers yet to answer
	cancel    context.CancelFunc      // ends this round's handlers; nil when none run
	params    messages.RawMessage     // what the next send carries
}

// inputAnswer names the input request a handler's serverReplyReady
// answers.
type inputAnswer struct {
	call  *Call
	round int
	key   string
}

// startInputRound runs the handlers of an input_required answer to c (no
// longer pending), or ends c when the answer cannot be followed.
func (a *sessionActor) startInputRound(c *Call, result messages.RawMessage) {
	var ir messages.InputRequiredResult
	if err := messages.Unmarshal(result, &ir); err != nil {
		c.finish(a, nil, &mcperr.ProtocolError{Method: c.Method, Reason: "malformed input_required result: " + err.Error()})
		return
	}
	if len(ir.InputRequests) == 0 && ir.RequestState == "" {
		c.finish(a, nil, &mcperr.ProtocolError{Method: c.Method, Reason: "an input_required result with neither inputRequests nor requestState"})
		return
	}
	r := a.roundsOf(c)
	if r == nil {
		r = &inputRounds{}
		if a.rounds == nil {
			a.rounds = map[*Call]*inputRounds{}
		}
		a.rounds[c] = r
	}
	methods := make(map[string]string, len(ir.InputRequests))
	for key, req := range ir.InputRequests {
		methods[key] = req.Method
	}
	if r.n == MaxInputRounds {
		c.finish(a, nil, &mcperr.InputRequiredError{Method: c.Method, Rounds: r.n, Requests: methods, Result: result})
		return
	}
	r.n++
	if c.Span != nil {
		list := make([]string, 0, len(methods))
		for _, m := range methods {
			list = append(list, m)
		}
		slices.Sort(list)
		c.Span.InputRequired(r.n, list)
	}
	// Every request must have an answerer before any handler starts.
	handlers := make(map[string]ServerRequestHandler, len(ir.InputRequests))
	r.responses = make(messages.InputResponses, len(ir.InputRequests))
	for key, req := range ir.InputRequests {
		h, static, err := a.inputHandler(req.Method)
		switch {
		case err != nil:
			c.finish(a, nil, &mcperr.InputRequestError{Method: c.Method, Key: key, Request: req.Method, Err: err})
			return
		case h != nil:
			handlers[key] = h
		default:
			r.responses[key] = static
		}
	}
	r.state = ir.RequestState
	if len(handlers) == 0 {
		a.sendAgain(c, r)
		return
	}
	ctx, cancel := context.WithDeadline(c.Span.Context(), c.deadline)
	r.cancel, r.waiting = cancel, len(handlers)
	for key, h := range handlers {
		req := ir.InputRequests[key]
		a.handleOffActor(ctx, nil, req.Method, req.Params, h,
			&serverReplyReady{input: &inputAnswer{call: c, round: r.n, key: key}})
	}
}

// roundsOf returns c's exchange, or nil for a call in none.
func (a *sessionActor) roundsOf(c *Call) *inputRounds {
	if a.rounds == nil {
		return nil
	}
	return a.rounds[c]
}

// inputHandler finds what answers an input request: a handler to run off
// the actor, or an answer the engine has at hand (the fixed roots), or
// ErrNoInputHandler. The same handlers as the legacy era's server
// requests (onServerRequest).
func (a *sessionActor) inputHandler(method string) (ServerRequestHandler, messages.RawMessage, error) {
	cfg := a.sh.cfg
	var h ServerRequestHandler
	switch method {
	case messages.MethodSamplingCreateMessage:
		h = cfg.Sampling
	case messages.MethodElicitationCreate:
		h = cfg.Elicitation
	case messages.MethodRootsList:
		h = cfg.RootsHandler
		if h == nil && a.sh.actorOnly.roots != nil {
			raw, err := messages.Marshal(&messages.ListRootsResult{Roots: a.sh.actorOnly.roots})
			return nil, raw, err
		}
	}
	if h == nil {
		return nil, nil, mcperr.ErrNoInputHandler
	}
	return h, nil, nil
}

// onInputAnswer takes one handler's answer to an input request; the last
// one of the round sends the call again. A handler's error ends the call
// (nothing is sent: the server is not waiting for an answer).
func (a *sessionActor) onInputAnswer(m *serverReplyReady) {
	in := m.input
	c := in.call
	r := a.roundsOf(c)
	if r == nil || r.cancel == nil || r.n != in.round {
		return // the call ended (cancel, deadline, Close) meanwhile
	}
	raw, err := m.raw()
	switch {
	case err != nil && !time.Now().Before(c.deadline):
		// The handler gave up with the call's deadline (its ctx carries
		// it): the call timed out, whichever clock fired first.
		a.sh.stats.Timeouts.Add(1)
		c.finish(a, nil, a.timeoutError(c))
	case err != nil:
		c.finish(a, nil, &mcperr.InputRequestError{Method: c.Method, Key: in.key, Request: m.method, Err: err})
	default:
		r.responses[in.key] = raw
		if r.waiting--; r.waiting == 0 {
			a.sendAgain(c, r)
		}
	}
}

// sendAgain sends c once more, its params carrying the round's answers and
// requestState, under a new id: through onCall, so a session that is
// reconnecting queues it.
func (a *sessionActor) sendAgain(c *Call, r *inputRounds) {
	r.stopHandlers()
	r.params = messages.AppendInputRetry(nil, c.Params, r.responses, r.state)
	r.responses = nil
	a.onCall(nil, c)
}

// stopHandlers ends a round's handlers, if any still run.
func (r *inputRounds) stopHandlers() {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// endRounds forgets c's exchange, if it had one, when c finishes.
func (a *sessionActor) endRounds(c *Call) {
	if r := a.rounds[c]; r != nil {
		r.stopHandlers()
		delete(a.rounds, c)
		if len(a.rounds) == 0 {
			a.rounds = nil
		}
	}
}

// sweepRounds fails the calls whose deadline passed while their handlers
// ran, and considers the deadlines of the others.
func (a *sessionActor) sweepRounds(now time.Time, consider func(time.Time)) {
	for c, r := range a.rounds {
		if r.cancel == nil {
			continue // on the wire or queued: swept there
		}
		if now.Before(c.deadline) {
			consider(c.deadline)
			continue
		}
		a.sh.stats.Timeouts.Add(1)
		c.finish(a, nil, a.timeoutError(c))
	}
}

// failRounds fails every call whose handlers are running (Close, a panic
// restart).
func (a *sessionActor) failRounds(err error) {
	for c, r := range a.rounds {
		if r.cancel != nil {
			c.finish(a, nil, err)
		}
	}
}

// raw is a handler's answer encoded for inputResponses, or its error.
func (m *serverReplyReady) raw() (messages.RawMessage, error) {
	if m.err != nil {
		return nil, m.err
	}
	if m.result == nil {
		return nil, fmt.Errorf("the handler returned no result")
	}
	return messages.Marshal(m.result)
}
