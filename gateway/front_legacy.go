package gateway

import (
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// The legacy HTTP+SSE front (protocol 2024-11-05) for clients that
// predate Streamable HTTP: a GET on PathSSE opens a session and its one
// stream, whose first event names PathMessage?sessionId=… as the place to
// POST messages; answers, notifications and the servers' requests all go
// on that stream (the session's standalone one). The session ends when
// the stream closes. It is the same client session as the Streamable
// HTTP endpoint's: the same routing, policies and server requests.

// serveSSE opens a legacy session's stream.
func (g *Gateway) serveSSE(w http.ResponseWriter, r *http.Request) {
	who, ok := g.admit(w, r, http.MethodGet)
	if !ok {
		return
	}
	if !httpserve.Accepts(r, "text/event-stream") {
		httpserve.Error(w, http.StatusNotAcceptable, messages.CodeInvalidRequest, "Accept must list text/event-stream")
		return
	}
	fs := g.fronts.create(who, "", messages.ClientCapabilities{}, true)
	if fs == nil {
		httpserve.Error(w, http.StatusServiceUnavailable, messages.CodeInternalError, "the gateway is shutting down")
		return
	}
	defer g.fronts.end(fs)
	g.fronts.release(fs)
	c := newCarrier()
	fs.standalone.attach(c, true)

	httpserve.SetSSEHeaders(w)
	w.WriteHeader(http.StatusOK)
	sw := mcpserver.NewSSEWriter(w, standaloneStreamID, 0)
	if _, err := w.Write(mcpserver.AppendEndpointEvent(nil, PathMessage, fs.id)); err != nil || sw.Flush() != nil {
		return
	}
	g.log.Debug("gateway: legacy client session opened", "session", fs.id, "client", who.name)
	fs.standalone.pumpTo(r.Context(), sw, c, fs.standalone.standaloneCursor(false), fs.done)
}

// serveMessage takes the messages of a legacy session: 202 at once, the
// answers go on its stream.
func (g *Gateway) serveMessage(w http.ResponseWriter, r *http.Request) {
	who, ok := g.admit(w, r, http.MethodPost)
	if !ok {
		return
	}
	fs := g.fronts.lookup(mcpserver.LegacySessionID(r))
	if fs == nil {
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
		return
	}
	defer g.fronts.release(fs)
	switch {
	case !fs.legacy:
		httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
		return
	case fs.who != who:
		httpserve.Error(w, http.StatusForbidden, messages.CodeInvalidRequest, "the session belongs to another client")
		return
	}
	body, msgs := httpserve.ReadMessages(w, r, g.cfg.MaxBodyBytes)
	if body == nil {
		return
	}
	for _, m := range g.clientMessages(r.Context(), fs, msgs) {
		switch {
		case m.Method == messages.MethodInitialize:
			fs.standalone.push(g.initializeLegacy(fs, m))
		case !fs.initialized.Load():
			fs.standalone.push(messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInvalidRequest, Message: "the session is not initialized"}))
		case !fs.startHandler():
			httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session not found")
			return
		default:
			// Owner: the session (fs.handlers, counted by startHandler;
			// waited for by its end). Exits when the request is handled;
			// fs.ctx, cancelled when the session ends, bounds that.
			go func() {
				defer fs.handlers.Done()
				if f := g.handleOne(fs.ctx, fs, m, nil); f != nil {
					fs.standalone.push(f)
				}
			}()
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

// initializeLegacy answers a legacy session's initialize, on the POST's
// goroutine: the version and capabilities are set before any other
// request of the session runs (initialized orders them).
func (g *Gateway) initializeLegacy(fs *frontSession, m *messages.Message) []byte {
	if fs.initialized.Load() {
		return messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInvalidRequest, Message: "the session is already initialized"})
	}
	var p messages.InitializeParams
	if err := messages.Unmarshal(m.Params, &p); err != nil {
		return messages.AppendError(nil, m.ID, invalidParams("initialize: "+err.Error()))
	}
	version := mcpserver.NegotiateVersion(p.ProtocolVersion, messages.SupportedVersions)
	raw, err := g.initializeResult(fs.who, version)
	if err != nil {
		return messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()})
	}
	fs.version, fs.caps = version, p.Capabilities
	fs.initialized.Store(true)
	g.log.Debug("gateway: legacy client session started", "session", fs.id, "client", fs.who.name, "protocol", version)
	return messages.AppendResult(nil, m.ID, raw)
}
