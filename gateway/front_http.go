package gateway

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// HTTP header names of Streamable HTTP.
const (
	headerSessionID       = mcpserver.HeaderSessionID
	headerProtocolVersion = mcpserver.HeaderProtocolVersion
)

// serveMCP is the aggregated endpoint: the server side of MCP's
// Streamable HTTP transport. A POST carries messages; requests are
// answered with application/json, or with an event stream when the server
// may send something before the answer (progress, or a sampling,
// elicitation or roots request for a client that declared them). GET
// opens the session's standalone stream (list_changed, resources/updated,
// log messages, and server requests whose own answer stream is gone), one
// at a time. Event streams are resumable: every event has an id, and a
// GET with Last-Event-ID resumes the stream it names (answer or
// standalone) after that event. DELETE ends the session.
func (g *Gateway) serveMCP(w http.ResponseWriter, r *http.Request) {
	who, ok := g.admit(w, r)
	if !ok {
		return
	}
	switch r.Method {
	case http.MethodPost:
		g.postMCP(w, r, who)
	case http.MethodGet:
		g.getMCP(w, r, who)
	case http.MethodDelete:
		g.deleteMCP(w, r, who)
	default:
		httpserve.MethodNotAllowed(w, "GET, POST, DELETE")
	}
}

// admit checks a front request's token and (when allow lists any) HTTP
// method, answering the refusals itself before the body is read, and
// returns the client. (Host and Origin were checked by the guard.)
func (g *Gateway) admit(w http.ResponseWriter, r *http.Request, allow ...string) (*principal, bool) {
	if len(allow) > 0 && !slices.Contains(allow, r.Method) {
		httpserve.MethodNotAllowed(w, strings.Join(allow, ", "))
		return nil, false
	}
	who, aerr := g.auth.authenticate(r)
	if aerr != nil {
		writeAuthError(w, r, aerr)
		return nil, false
	}
	return who, true
}

// session finds the session a request names, answering the errors itself
// (400 without an id, 404 for an unknown one, 403 for another client's);
// the caller releases it.
func (g *Gateway) session(w http.ResponseWriter, r *http.Request, who *principal) *frontSession {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "missing "+headerSessionID+" header")
		return nil
	}
	fs := g.fronts.lookup(id)
	if fs != nil && fs.legacy {
		g.fronts.release(fs)
		fs = nil
	}
	if fs == nil {
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
		return nil
	}
	if fs.who != who {
		g.fronts.release(fs)
		httpserve.Error(w, http.StatusForbidden, messages.CodeInvalidRequest, "the session belongs to another client")
		return nil
	}
	if v := r.Header.Get(headerProtocolVersion); v != "" && v != fs.version && !messages.IsSupportedVersion(v) {
		g.fronts.release(fs)
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "unsupported "+headerProtocolVersion)
		return nil
	}
	return fs
}

func (g *Gateway) postMCP(w http.ResponseWriter, r *http.Request, who *principal) {
	body, msgs := httpserve.ReadStreamablePost(w, r, g.cfg.MaxBodyBytes)
	if body == nil {
		return
	}
	if r.Header.Get(headerSessionID) == "" {
		if m := mcpserver.ModernPost(r, msgs, frontVersions); m != nil {
			g.postModern(w, r, who, m)
			return
		}
		if len(msgs) == 1 && msgs[0].Kind == messages.KindRequest && msgs[0].Method == messages.MethodInitialize {
			g.initialize(w, who, &msgs[0])
			return
		}
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "missing "+headerSessionID+" header (only initialize starts a session)")
		return
	}
	fs := g.session(w, r, who)
	if fs == nil {
		return
	}
	defer g.fronts.release(fs)

	reqs := g.clientMessages(r.Context(), fs, msgs)
	if len(reqs) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	batch := bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("["))
	sse := g.wantsStream(fs, reqs)
	if !sse && !batch {
		// The common case answers inline, on the handler's goroutine.
		frame := g.handleOne(r.Context(), fs, reqs[0], nil)
		writeJSONAnswer(w, frame)
		return
	}
	g.answerMany(w, r, fs, reqs, sse)
}

// clientMessages takes the responses and notifications of a POST and
// returns its requests.
func (g *Gateway) clientMessages(ctx context.Context, fs *frontSession, msgs []messages.Message) []*messages.Message {
	var reqs []*messages.Message
	for i := range msgs {
		m := &msgs[i]
		switch m.Kind {
		case messages.KindResponse:
			fs.answered(m)
		case messages.KindNotification:
			switch m.Method {
			case messages.NotificationCancelled:
				fs.cancelled(m.Params)
			case messages.NotificationProgress:
				fs.progress(ctx, m.Params)
			case messages.NotificationRootsListChanged:
				g.rootsListChanged(ctx, fs.who)
			}
		case messages.KindRequest:
			reqs = append(reqs, m)
		}
	}
	return reqs
}

// wantsStream reports whether the answer should be an event stream: a
// forwarded request asked for progress, or the client takes server
// requests, which the server may send while it works on the request.
func (g *Gateway) wantsStream(fs *frontSession, reqs []*messages.Message) bool {
	for _, m := range reqs {
		switch m.Method {
		case messages.MethodSubscriptionsListen:
			return true // its answer is the stream of its notifications
		case messages.MethodToolsCall, messages.MethodResourcesRead, messages.MethodPromptsGet, messages.MethodCompletionComplete:
			// A 2026-07-28 client takes the server's requests as
			// input_required, not on a stream.
			if (!fs.modern && fs.takesServerRequests()) || bytes.Contains(m.Params, []byte(`"progressToken"`)) {
				return true
			}
		}
	}
	return false
}

// handleOne handles one client request and returns its response frame,
// or nil when the client cancelled it (nothing is answered then).
func (g *Gateway) handleOne(ctx context.Context, fs *frontSession, m *messages.Message, out *frontStream) []byte {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !fs.track(m.ID, cancel) {
		return messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInvalidRequest, Message: "a request with id " + m.ID.String() + " is already in progress"})
	}
	defer fs.untrack(m.ID)
	res, werr := g.dispatch(ctx, fs, m, out)
	switch {
	case werr == errNoAnswer:
		return nil
	case werr != nil:
		return messages.AppendError(nil, m.ID, werr)
	case fs.modern:
		res = modernResult(m.Method, res)
	}
	return messages.AppendResult(nil, m.ID, res)
}

// writeJSONAnswer answers a POST with one response, or 202 when there is
// none (the request was cancelled).
func writeJSONAnswer(w http.ResponseWriter, frame []byte) {
	if frame == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(frame)
}

// answerMany handles the requests of one POST concurrently and answers
// with one JSON array (a batch without streaming; a client that goes away
// cancels its requests), or with a resumable event stream carrying
// whatever the servers send on their behalf and then their responses.
// The stream's requests belong to the session: a client that loses the
// stream resumes it with Last-Event-ID and gets what it missed.
func (g *Gateway) answerMany(w http.ResponseWriter, r *http.Request, fs *frontSession, reqs []*messages.Message, sse bool) {
	if !sse {
		g.answerBatch(w, r, fs, reqs)
		return
	}
	st := fs.openAnswer(len(reqs))
	if st == nil {
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
		return
	}
	for _, m := range reqs {
		// Owner: the session (fs.handlers, counted by openAnswer; waited
		// for by its end). Exits when the request is handled; fs.ctx,
		// cancelled when the session ends, bounds that.
		go func() {
			defer fs.handlers.Done()
			if f := g.handleOne(fs.ctx, fs, m, st); f != nil {
				st.push(f)
			}
			if st.settle() {
				fs.keep(st)
			}
		}()
	}
	c := newCarrier()
	st.attach(c, false)
	st.pump(r.Context(), w, c, 0, fs.done)
}

// answerBatch answers a batch of requests with the array of their
// responses.
func (g *Gateway) answerBatch(w http.ResponseWriter, r *http.Request, fs *frontSession, reqs []*messages.Message) {
	frames := make([][]byte, len(reqs))
	var wg sync.WaitGroup
	for i, m := range reqs {
		wg.Add(1)
		// Owner: this POST's handler (wg, waited for below). Exits when the
		// request is handled; the request's context bounds that.
		go func() {
			defer wg.Done()
			frames[i] = g.handleOne(r.Context(), fs, m, nil)
		}()
	}
	wg.Wait()
	writeJSONBatch(w, frames)
}

// writeJSONBatch answers a batch with the array of its responses (202
// when every request was cancelled).
func writeJSONBatch(w http.ResponseWriter, frames [][]byte) {
	body := []byte{'['}
	for _, f := range frames {
		if f == nil {
			continue
		}
		if len(body) > 1 {
			body = append(body, ',')
		}
		body = append(body, f...)
	}
	if len(body) == 1 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, ']'))
}

// getMCP opens the standalone stream of a session, or with Last-Event-ID
// resumes the stream that event belongs to, taking it over from any
// connection still writing it.
func (g *Gateway) getMCP(w http.ResponseWriter, r *http.Request, who *principal) {
	if !httpserve.Accepts(r, "text/event-stream") {
		httpserve.Error(w, http.StatusNotAcceptable, messages.CodeInvalidRequest, "Accept must list text/event-stream")
		return
	}
	fs := g.session(w, r, who)
	if fs == nil {
		return
	}
	defer g.fronts.release(fs)
	c := newCarrier()
	if last := r.Header.Get(mcpserver.HeaderLastEventID); last != "" {
		streamID, seq, ok := mcpserver.ParseEventID(last)
		if !ok {
			httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "malformed Last-Event-ID")
			return
		}
		st := fs.stream(streamID)
		if st == nil || !st.resumable(seq) {
			httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "unknown or expired stream")
			return
		}
		st.attach(c, false)
		st.pump(r.Context(), w, c, seq, fs.done)
		return
	}
	if !fs.standalone.attach(c, true) {
		httpserve.Error(w, http.StatusConflict, messages.CodeInvalidRequest, "the session's GET stream is already open")
		return
	}
	fs.standalone.pump(r.Context(), w, c, fs.standalone.standaloneCursor(true), fs.done)
}

func (g *Gateway) deleteMCP(w http.ResponseWriter, r *http.Request, who *principal) {
	fs := g.session(w, r, who)
	if fs == nil {
		return
	}
	defer g.fronts.release(fs)
	g.fronts.end(fs)
	w.WriteHeader(http.StatusOK)
}
