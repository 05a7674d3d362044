package gateway

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// input_required on the aggregated endpoint (2026-07-28): a client of the
// stateless era takes no request on a stream, so a server's sampling,
// elicitation or roots request on behalf of its request ends that HTTP
// request with an input_required result (the server requests as
// inputRequests, keyed by the id the gateway gave them, and a
// requestState). The forwarded request goes on meanwhile, in a session of
// its own kept under the requestState (a suspension); the client's retry,
// carrying inputResponses and that requestState, hands the answers to the
// waiting server requests and waits again: for the answer, or for the
// next input requests. A suspension the client does not come back to
// within ClientRequestTimeout ends, and the request is cancelled
// upstream. Requests answered with an event stream (those asking for
// progress) take no input: their server requests are refused.

// suspension is one 2026-07-28 request in progress across HTTP requests.
type suspension struct {
	fs     *frontSession
	answer chan []byte // the request's response frame (nil: none); capacity 1
	expiry *time.Timer // armed while it waits for the client's retry
}

// takeSuspension removes and returns the suspension under token, if any
// (once: of two retries with the same requestState, one gets it).
func (g *Gateway) takeSuspension(token string) *suspension {
	sc, _ := g.suspended.Get(token)
	if sc == nil || !g.suspended.Remove(token, sc) {
		return nil
	}
	return sc
}

// endSuspensions ends every suspension and refuses new ones.
func (g *Gateway) endSuspensions() {
	for _, sc := range g.suspended.Close() {
		sc.expiry.Stop()
		sc.fs.end()
	}
}

// serveWithInput runs a modern request that may need the client's input
// and answers it: its response, or input_required.
func (g *Gateway) serveWithInput(w http.ResponseWriter, r *http.Request, fs *frontSession, m *messages.Message) {
	var retry messages.InputRetryParams
	_ = messages.Unmarshal(m.Params, &retry)
	var sc *suspension
	if retry.RequestState != "" {
		sc = g.takeSuspension(retry.RequestState)
		if sc == nil || sc.fs.who != fs.who {
			fs.end()
			writeJSONAnswer(w, messages.AppendError(nil, m.ID, invalidParams("unknown or expired requestState")))
			return
		}
		fs.end() // the retry's own session is not needed: the request runs in the first one's
		sc.expiry.Stop()
		for key, res := range retry.InputResponses {
			if n, err := strconv.ParseInt(key, 10, 64); err == nil {
				sc.fs.outbound.Answer(&messages.Message{ID: messages.NumberID(n), Result: res})
			}
		}
	} else {
		sc = &suspension{fs: fs, answer: make(chan []byte, 1)}
		fs.inputs = make(chan []byte, 8)
		if !fs.startHandler() {
			fs.end()
			return
		}
		req := *m
		// Owner: the suspension's session (fs.handlers, counted by
		// startHandler; waited for by its end). Exits when the request is
		// handled; fs.ctx, cancelled when the session ends (the answer
		// given, the client gone, the suspension expired or the gateway
		// closed), bounds that.
		go func() {
			defer fs.handlers.Done()
			sc.answer <- g.handleOne(fs.ctx, fs, &req, nil)
		}()
	}
	g.awaitInput(w, r, sc, m.ID)
}

// awaitInput answers with the request's response, or with input_required
// for the requests to the client it raised meanwhile.
func (g *Gateway) awaitInput(w http.ResponseWriter, r *http.Request, sc *suspension, id messages.ID) {
	select {
	case frame := <-sc.answer:
		sc.fs.end()
		if frame != nil {
			frame = withResponseID(frame, id)
		}
		writeJSONAnswer(w, frame)
	case first := <-sc.fs.inputs:
		res := messages.InputRequiredResult{ResultType: messages.ResultTypeInputRequired, InputRequests: map[string]messages.InputRequest{}}
		for frame := first; frame != nil; frame = pollInput(sc.fs.inputs) {
			if in, err := messages.DecodeMessage(frame); err == nil && in.Kind == messages.KindRequest {
				res.InputRequests[in.ID.String()] = messages.InputRequest{Method: in.Method, Params: in.Params}
			}
		}
		res.RequestState = mcpserver.NewSessionID()
		sc.expiry = time.AfterFunc(g.cfg.ClientRequestTimeout, func() {
			if g.takeSuspension(res.RequestState) == sc {
				sc.fs.end()
			}
		})
		raw, err := messages.Marshal(&res)
		if err != nil || !g.suspended.Add(res.RequestState, sc, nil) {
			sc.expiry.Stop()
			sc.fs.end()
			writeJSONAnswer(w, messages.AppendError(nil, id, &messages.WireError{Code: messages.CodeInternalError, Message: "the gateway cannot wait for the client's input"}))
			return
		}
		writeJSONAnswer(w, messages.AppendResult(nil, id, raw))
	case <-r.Context().Done():
		sc.fs.end() // the client is gone: the request is cancelled upstream
	}
}

// pollInput returns a further input request already raised, or nil.
func pollInput(in chan []byte) []byte {
	select {
	case f := <-in:
		return f
	default:
		return nil
	}
}

// withResponseID gives a response frame, made for the request that
// started the suspension, the id of the retry it answers.
func withResponseID(frame []byte, id messages.ID) []byte {
	m, err := messages.DecodeMessage(frame)
	if err != nil {
		return frame
	}
	if m.Error != nil {
		return messages.AppendError(nil, id, m.Error)
	}
	return messages.AppendResult(nil, id, m.Result)
}
