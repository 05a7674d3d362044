package demoserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// StreamableHandler serves the demo server over Streamable HTTP (protocol
// 2025-03-26 and later) at one MCP endpoint:
//
//   - POST a JSON-RPC message or batch. Notifications and responses get
//     202. Requests get application/json or an SSE stream (see
//     AnswerMode) carrying, before the response, the progress
//     notifications and the sampling, elicitation and roots requests of
//     the call; the client answers those with further POSTs.
//   - The POST of initialize creates a session: the answer carries its
//     Mcp-Session-Id, which every later request must carry (400 without,
//     404 once the session is gone). A Mcp-Protocol-Version header the
//     server does not accept gets 400.
//   - GET opens the session's standalone stream: list_changed,
//     resources/updated and log notifications, and whatever found no open
//     answer stream (buffered while no GET stream is open). One at a time
//     (409 for a second).
//   - GET with Last-Event-ID resumes the stream that event belongs to
//     (answer or standalone), replaying what followed it. Every SSE
//     stream starts with a priming event (an id, a retry field, no data).
//   - DELETE ends the session.
//
// Close ends every session; call it before shutting down the http.Server,
// since open streams end only with their session.
type StreamableHandler struct {
	srv    *Server
	o      HTTPOptions
	hub    *hub
	faults failCounter
	drops  atomic.Int64 // SSE answer streams opened, for DropStreamEvery
}

// StreamableHandler returns a Streamable HTTP handler for this server.
// Each HTTP session is served like one connection of Serve.
func (s *Server) StreamableHandler(o HTTPOptions) *StreamableHandler {
	h := &StreamableHandler{srv: s, o: o.withDefaults()}
	h.hub = newHub(s, &h.o, "http")
	return h
}

// Close ends every session (their open streams end with them) and waits
// for them; see hub.close for ctx.
func (h *StreamableHandler) Close(ctx context.Context) error { return h.hub.close(ctx) }

// ExpireSession ends a session on demand, as if it had expired: later
// requests carrying its id get 404. It reports whether the session was
// live.
func (h *StreamableHandler) ExpireSession(id string) bool { return h.hub.endID(id) }

// ExpireAll ends every live session and returns how many there were.
func (h *StreamableHandler) ExpireAll() int { return h.hub.endAll() }

// SessionIDs lists the live sessions' ids.
func (h *StreamableHandler) SessionIDs() []string { return h.hub.ids() }

// ServeHTTP implements http.Handler.
func (h *StreamableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.o.guard().Check(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		httpserve.MethodNotAllowed(w, "GET, POST, DELETE")
	}
}

// session finds the session a non-initializing request names, answering
// 400 or 404 itself when there is none, and 400 for a protocol version
// header the server does not accept. The caller releases it.
func (h *StreamableHandler) session(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get(HeaderSessionID)
	if id == "" {
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "missing "+HeaderSessionID+" header")
		return nil
	}
	s := h.hub.lookup(id)
	if s == nil {
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
		return nil
	}
	if !h.versionOK(r, s.streamable) {
		h.hub.release(s)
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "unsupported "+HeaderProtocolVersion)
		return nil
	}
	return s
}

// versionOK checks the Mcp-Protocol-Version header: absent (2025-03-26
// clients do not send it), one the server accepts, or the one it
// negotiated (which the AnswerVersion fault may have made up).
func (h *StreamableHandler) versionOK(r *http.Request, c *httpConn) bool {
	v := r.Header.Get(HeaderProtocolVersion)
	if v == "" || slices.Contains(h.srv.opts.Versions, v) {
		return true
	}
	return c != nil && v == c.negotiated()
}

func (h *StreamableHandler) post(w http.ResponseWriter, r *http.Request) {
	body, msgs := httpserve.ReadStreamablePost(w, r, h.o.MaxBodyBytes)
	if body == nil {
		return
	}
	if m := h.modernPost(r, msgs); m != nil {
		h.postModern(w, r, body, msgs, m)
		return
	}
	p := inspectPost(msgs)
	s, created := h.postSession(w, r, p)
	if s == nil {
		return
	}
	defer h.hub.release(s)
	c := s.streamable
	if len(p.requests) == 0 {
		if !c.deliver(body, p) {
			httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session ended")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.answer(w, r, s, body, p, created)
}

// answer delivers a POST of requests to the session and writes its
// answer, JSON or an SSE stream.
func (h *StreamableHandler) answer(w http.ResponseWriter, r *http.Request, s *httpSession, body []byte, p *postInfo, created bool) {
	c := s.streamable
	sse := h.o.AnswerMode == AnswerSSE || (h.o.AnswerMode == AnswerAuto && p.mayEmit())
	drop := sse && h.o.DropStreamEvery > 0 && h.drops.Add(1)%int64(h.o.DropStreamEvery) == 0
	st, err := c.openAnswer(p, !sse, drop, !h.o.NoPriming)
	switch {
	case errors.Is(err, errDuplicateID):
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, err.Error())
		return
	case err != nil:
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session ended")
		return
	}
	sk := newSink()
	c.attachAnswer(st, sk)
	if !c.deliver(body, p) {
		c.abandon(st)
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session ended")
		return
	}
	if !sse {
		h.answerJSON(w, r, s, st, sk, created)
		return
	}
	if created {
		w.Header().Set(HeaderSessionID, s.id)
	}
	httpserve.SetSSEHeaders(w)
	w.WriteHeader(http.StatusOK)
	h.pump(w, r, s, st, sk, 0)
	if _, failed := c.initOutcome(); created && failed {
		h.hub.end(s) // a session whose initialize failed is of no use
	}
}

// postSession finds the session a POST is for, or creates one for an
// initialize without a session id, after applying the request faults
// (FailNth, FailEvery, ExpireAfter: a failed request never reaches a
// session). It answers the errors itself and returns nil then; the caller
// releases the session.
func (h *StreamableHandler) postSession(w http.ResponseWriter, r *http.Request, p *postInfo) (s *httpSession, created bool) {
	create := r.Header.Get(HeaderSessionID) == "" && p.init
	if create {
		if !h.versionOK(r, nil) {
			httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "unsupported "+HeaderProtocolVersion)
			return nil, false
		}
	} else if s = h.session(w, r); s == nil {
		return nil, false
	}
	if len(p.requests) > 0 {
		if status := h.faults.failPost(&h.o); status != 0 {
			if s != nil {
				h.hub.release(s)
			}
			injectedFailure(w, status)
			return nil, false
		}
	}
	if create {
		if s = h.newSession(); s == nil {
			httpserve.Error(w, http.StatusServiceUnavailable, messages.CodeInternalError, "server shutting down")
			return nil, false
		}
	}
	if len(p.requests) > 0 && h.o.ExpireAfter > 0 && s.requests.Add(1) > int64(h.o.ExpireAfter) {
		h.hub.release(s)
		h.hub.end(s)
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session expired")
		return nil, false
	}
	return s, create
}

// newSession creates and starts a session for an initialize POST.
func (h *StreamableHandler) newSession() *httpSession {
	c := newHTTPConn(&h.o)
	s := &httpSession{id: mcpserver.NewSessionID(), conn: c, streamable: c, end: c.in.finish}
	if h.hub.start(s) != nil {
		return nil
	}
	h.hub.hold(s)
	return s
}

func (h *StreamableHandler) get(w http.ResponseWriter, r *http.Request) {
	if !httpserve.Accepts(r, "text/event-stream") {
		httpserve.Error(w, http.StatusNotAcceptable, messages.CodeInvalidRequest, "Accept must list text/event-stream")
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	defer h.hub.release(s)
	c := s.streamable
	sk := newSink()

	if last := r.Header.Get(HeaderLastEventID); last != "" {
		streamID, seq, ok := mcpserver.ParseEventID(last)
		if !ok {
			httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "malformed "+HeaderLastEventID)
			return
		}
		st, err := c.resume(streamID, seq, sk)
		if err != nil {
			httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, err.Error())
			return
		}
		httpserve.SetSSEHeaders(w)
		w.WriteHeader(http.StatusOK)
		h.pump(w, r, s, st, sk, seq)
		return
	}

	if h.o.NoGetStream {
		httpserve.MethodNotAllowed(w, "POST, DELETE")
		return
	}
	if status := h.faults.failGet(&h.o); status != 0 {
		injectedFailure(w, status)
		return
	}
	cursor, err := c.openStandalone(sk, !h.o.NoPriming)
	switch {
	case errors.Is(err, errStreamBusy):
		httpserve.Error(w, http.StatusConflict, messages.CodeInvalidRequest, err.Error())
		return
	case err != nil:
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session ended")
		return
	}
	httpserve.SetSSEHeaders(w)
	w.WriteHeader(http.StatusOK)
	h.pump(w, r, s, c.standalone, sk, cursor)
}

func (h *StreamableHandler) delete(w http.ResponseWriter, r *http.Request) {
	if h.o.NoDelete {
		httpserve.MethodNotAllowed(w, "GET, POST")
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	defer h.hub.release(s)
	h.hub.end(s)
	w.WriteHeader(http.StatusOK)
}
