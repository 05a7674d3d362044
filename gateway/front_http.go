package gateway

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/messages"
)

// HTTP header names of Streamable HTTP.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
)

// serveMCP is the aggregated endpoint: the server side of MCP's
// Streamable HTTP transport, without resumability. A POST carries
// messages; requests are answered with application/json, or with an event
// stream when the server may send something before the answer (progress,
// or a sampling, elicitation or roots request for a client that declared
// them). GET opens the session's standalone stream (list_changed,
// resources/updated, log messages, and server requests whose own answer
// stream is gone), one at a time. DELETE ends the session.
func (g *Gateway) serveMCP(w http.ResponseWriter, r *http.Request) {
	if !httpserve.CheckOrigin(w, r, g.cfg.AllowedOrigins) {
		return
	}
	who, aerr := g.auth.authenticate(r)
	if aerr != nil {
		writeAuthError(w, aerr)
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
				fs.progress(r.Context(), m.Params)
			case messages.NotificationRootsListChanged:
				g.rootsListChanged(r.Context(), who)
			}
		case messages.KindRequest:
			reqs = append(reqs, m)
		}
	}
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

// wantsStream reports whether the answer should be an event stream: a
// forwarded request asked for progress, or the client takes server
// requests, which the server may send while it works on the request.
func (g *Gateway) wantsStream(fs *frontSession, reqs []*messages.Message) bool {
	for _, m := range reqs {
		switch m.Method {
		case messages.MethodToolsCall, messages.MethodResourcesRead, messages.MethodPromptsGet, messages.MethodCompletionComplete:
			if fs.takesServerRequests() || bytes.Contains(m.Params, []byte(`"progressToken"`)) {
				return true
			}
		}
	}
	return false
}

// handleOne handles one client request and returns its response frame,
// or nil when the client cancelled it (nothing is answered then).
func (g *Gateway) handleOne(ctx context.Context, fs *frontSession, m *messages.Message, out *outQueue) []byte {
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
// with an event stream carrying whatever the servers send on their behalf
// and then their responses, or with one JSON array (a batch without
// streaming). A client that goes away cancels its requests.
func (g *Gateway) answerMany(w http.ResponseWriter, r *http.Request, fs *frontSession, reqs []*messages.Message, sse bool) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var out *outQueue
	if sse {
		out = newOutQueue(0)
	}
	frames := make([][]byte, len(reqs))
	var remaining atomic.Int64
	remaining.Store(int64(len(reqs)))
	var wg sync.WaitGroup
	for i, m := range reqs {
		wg.Add(1)
		// Owner: this POST's handler (wg, waited for below). Exits when the
		// request is handled; ctx, cancelled when the handler returns or
		// the client goes away, bounds that.
		go func() {
			defer wg.Done()
			f := g.handleOne(ctx, fs, m, out)
			if out != nil && f != nil {
				out.push(f)
			}
			frames[i] = f
			remaining.Add(-1)
			if out != nil {
				out.signal()
			}
		}()
	}
	if !sse {
		wg.Wait()
		writeJSONBatch(w, frames)
		return
	}
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	_ = sw.rc.Flush()
	for {
		if err := sw.write(out.take()); err != nil {
			break // the client went away: its requests are cancelled below
		}
		if remaining.Load() == 0 {
			_ = sw.write(out.take()) // what came with the last response
			break
		}
		select {
		case <-out.wake:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	out.close()
	cancel()
	wg.Wait()
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

// getMCP opens the standalone stream of a session.
func (g *Gateway) getMCP(w http.ResponseWriter, r *http.Request, who *principal) {
	if !httpserve.Accepts(r, "text/event-stream") {
		httpserve.Error(w, http.StatusNotAcceptable, messages.CodeInvalidRequest, "Accept must list text/event-stream")
		return
	}
	if r.Header.Get("Last-Event-Id") != "" {
		httpserve.Error(w, http.StatusBadRequest, messages.CodeInvalidRequest, "the gateway's streams are not resumable")
		return
	}
	fs := g.session(w, r, who)
	if fs == nil {
		return
	}
	defer g.fronts.release(fs)
	fs.mu.Lock()
	if fs.getOpen {
		fs.mu.Unlock()
		httpserve.Error(w, http.StatusConflict, messages.CodeInvalidRequest, "the session's GET stream is already open")
		return
	}
	fs.getOpen = true
	fs.mu.Unlock()
	defer func() {
		fs.mu.Lock()
		fs.getOpen = false
		fs.mu.Unlock()
	}()

	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	if sw.rc.Flush() != nil {
		return
	}
	q := fs.standalone
	for {
		if err := sw.write(q.take()); err != nil {
			return
		}
		select {
		case <-q.wake:
		case <-r.Context().Done():
			return
		case <-fs.done:
			_ = sw.write(q.take())
			return
		}
	}
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
