package demoserver

import (
	"slices"

	"github.com/mcpengine/mcpengine/messages"
)

// toolServerRequests names, for each demo tool that sends a request to the
// client while it runs, the method it sends. The HTTP transport learns
// from it which answer stream such a request belongs on, and that the
// POST calling the tool needs an SSE answer to carry it.
var toolServerRequests = map[string]string{
	"sample": messages.MethodSamplingCreateMessage,
	"elicit": messages.MethodElicitationCreate,
	"roots":  messages.MethodRootsList,
}

// postInfo is what the Streamable HTTP transport needs to know about one
// POSTed body, read before the session sees it.
type postInfo struct {
	requests  []messages.ID // ids of the requests, in order
	init      bool          // one of them is initialize
	initID    messages.ID
	tokens    []messages.ID // progress tokens the requests asked for
	expects   []string      // server requests the tool calls will send
	cancelled []messages.ID // request ids of notifications/cancelled
	answered  []int64       // ids of client responses to server requests
	listen    bool          // a subscriptions/listen: its answer is a stream
}

// requestParams is the part of a request's params the transport reads.
type requestParams struct {
	Name string `json:"name"` // tools/call
	Meta *struct {
		ProgressToken *messages.ID `json:"progressToken"`
	} `json:"_meta"`
}

// inspectPost reads what postInfo needs from decoded messages. Params it
// cannot read are left to the session to refuse.
func inspectPost(msgs []messages.Message) *postInfo {
	p := &postInfo{}
	for i := range msgs {
		m := &msgs[i]
		switch m.Kind {
		case messages.KindRequest:
			p.requests = append(p.requests, m.ID)
			if m.Method == messages.MethodInitialize {
				p.init, p.initID = true, m.ID
			}
			if m.Method == messages.MethodSubscriptionsListen {
				p.listen = true
			}
			var rp requestParams
			if len(m.Params) == 0 || decodeJSON(m.Params, &rp) != nil {
				continue
			}
			if rp.Meta != nil && rp.Meta.ProgressToken != nil && rp.Meta.ProgressToken.IsValid() {
				p.tokens = append(p.tokens, *rp.Meta.ProgressToken)
			}
			if m.Method == messages.MethodToolsCall {
				if method, ok := toolServerRequests[rp.Name]; ok {
					p.expects = append(p.expects, method)
				}
			}
		case messages.KindNotification:
			if m.Method != messages.NotificationCancelled {
				continue
			}
			var cp messages.CancelledParams
			if decodeParams(m.Params, &cp) == nil && cp.RequestID.IsValid() {
				p.cancelled = append(p.cancelled, cp.RequestID)
			}
		case messages.KindResponse:
			if n, ok := m.ID.Int64(); ok {
				p.answered = append(p.answered, n)
			}
		}
	}
	return p
}

// mayEmit reports whether the session may send messages before answering
// the POST: then an SSE answer can carry them (AnswerAuto).
func (p *postInfo) mayEmit() bool { return len(p.tokens) > 0 || len(p.expects) > 0 || p.listen }

// routeLocked picks the stream for one outbound frame (a message, or the
// batch of responses to one POSTed batch) and reports whether it carries
// responses:
//
//   - a response goes to the answer owing it (nil: nobody waits any more);
//   - notifications/progress goes to the SSE answer of the request that
//     asked for it with its token;
//   - sampling, elicitation and roots requests go to the SSE answer of a
//     running tool call that sends them (the oldest, if several);
//   - a notifications/cancelled for such a request follows it;
//   - everything else (list_changed, resources/updated, log messages, and
//     whatever found no open SSE answer) goes to the standalone stream,
//     which buffers it until a GET stream is open.
func (c *httpConn) routeLocked(msgs []messages.Message) (st *stream, response bool) {
	for i := range msgs {
		if msgs[i].Kind == messages.KindResponse {
			return c.routeResponsesLocked(msgs), true
		}
	}
	if len(msgs) != 1 {
		return c.standalone, false
	}
	m := &msgs[0]
	switch {
	case m.Kind == messages.KindRequest:
		st = c.takeExpectationLocked(m.Method)
		if n, ok := m.ID.Int64(); ok && st != nil {
			c.serverReqs[n] = st
		}
	case m.Method == messages.NotificationProgress:
		var pp messages.ProgressParams
		if decodeParams(m.Params, &pp) == nil {
			st = c.tokens[pp.ProgressToken]
		}
	case m.Kind == messages.KindNotification && isListenNotification(m.Params):
		st = c.listenStreamLocked(m.Params) // on the listen's answer
	case m.Method == messages.NotificationCancelled:
		var cp messages.CancelledParams
		if decodeParams(m.Params, &cp) == nil {
			if n, ok := cp.RequestID.Int64(); ok {
				st = c.serverReqs[n]
				delete(c.serverReqs, n)
			}
		}
	}
	if st == nil || st.json || st.complete {
		return c.standalone, false
	}
	return st, false
}

// routeResponsesLocked settles the responses of one frame and returns the
// answer they belong to (all of one frame answer one POST).
func (c *httpConn) routeResponsesLocked(msgs []messages.Message) *stream {
	var st *stream
	for i := range msgs {
		m := &msgs[i]
		if m.Kind != messages.KindResponse {
			continue
		}
		w := c.waiting[m.ID]
		if w == nil {
			continue
		}
		delete(c.waiting, m.ID)
		w.owed--
		if st == nil {
			st = w
		}
		if c.initID.IsValid() && m.ID == c.initID {
			c.noteInitLocked(m)
		}
	}
	return st
}

// noteInitLocked records the outcome of initialize.
func (c *httpConn) noteInitLocked(m *messages.Message) {
	c.initID = messages.ID{}
	if m.Error != nil {
		c.initFailed = true
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if decodeJSON(m.Result, &res) == nil {
		c.version = res.ProtocolVersion
	}
}

// takeExpectationLocked returns the oldest open SSE answer expecting a
// server request of this method, and forgets that expectation.
func (c *httpConn) takeExpectationLocked(method string) *stream {
	for i, e := range c.expects {
		if e.method == method && !e.st.complete {
			c.expects = slices.Delete(c.expects, i, i+1)
			return e.st
		}
	}
	return nil
}
