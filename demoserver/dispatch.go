package demoserver

import (
	"context"
	"time"

	"github.com/mcpengine/mcpengine/internal/mcpserver"

	"github.com/mcpengine/mcpengine/messages"
)

// handlerFunc handles one request. buf already holds the response envelope
// up to `"result":`; the handler appends the result JSON and returns the
// buffer (possibly grown). On error the buffer is reused for the error
// response. errNoResponse means "send nothing" (the request's context
// ended).
type handlerFunc func(r *request, buf []byte) ([]byte, *messages.WireError)

// methodSpec describes how one method is handled.
type methodSpec struct {
	handle handlerFunc
	// slow handlers may block, so they run on their own goroutine and can
	// be cancelled; quick ones run inline on the reader.
	slow bool
	// early methods may be called before initialize.
	early bool
	// prepare, if set, runs on the reader before dispatch (decoding params
	// early) and decides whether the request is slow.
	prepare func(r *request) (slow bool, werr *messages.WireError)
}

func methodTable() map[string]methodSpec {
	return map[string]methodSpec{
		messages.MethodInitialize:             {handle: handleInitialize, early: true},
		messages.MethodPing:                   {handle: handlePing, early: true},
		messages.MethodToolsList:              {handle: handleToolsList},
		messages.MethodToolsCall:              {handle: handleToolsCall, prepare: prepareToolsCall},
		messages.MethodResourcesList:          {handle: handleResourcesList},
		messages.MethodResourcesTemplatesList: {handle: handleTemplatesList},
		messages.MethodResourcesRead:          {handle: handleResourcesRead},
		messages.MethodResourcesSubscribe:     {handle: handleSubscribe},
		messages.MethodResourcesUnsubscribe:   {handle: handleUnsubscribe},
		messages.MethodPromptsList:            {handle: handlePromptsList},
		messages.MethodPromptsGet:             {handle: handlePromptsGet},
		messages.MethodCompletionComplete:     {handle: handleComplete},
		messages.MethodLoggingSetLevel:        {handle: handleSetLevel},
	}
}

// errNoResponse is returned by handlers that must not answer.
var errNoResponse = &messages.WireError{Code: messages.CodeInternalError, Message: "no response"}

// request is one client request being handled.
type request struct {
	s      *session
	ctx    context.Context
	id     messages.ID
	method string
	params messages.RawMessage
	batch  *batchCollector

	// modern: the request carries the 2026-07-28 _meta; its result says
	// resultType.
	modern bool

	// tools/call, decoded by prepareToolsCall
	tool          *tool
	args          messages.RawMessage
	progressToken messages.RawMessage
}

// handleFrame handles one received frame: a message or a batch.
func (s *session) handleFrame(frame []byte) error {
	frame = trimLeft(frame)
	if len(frame) > 0 && frame[0] == '[' {
		return s.handleBatch(frame)
	}
	m, err := messages.DecodeMessage(frame)
	if err != nil {
		s.invalidMessage(frame, err, nil)
		return nil
	}
	return s.handleMessage(&m, nil)
}

// invalidMessage counts a frame or batch member that is not valid JSON-RPC
// and answers it with -32600 if it has a usable id.
func (s *session) invalidMessage(raw []byte, err error, b *batchCollector) {
	st := s.srv.stats
	st.add(&st.invalid)
	s.srv.opts.Logger.Debug("demoserver: invalid message", "err", err)
	id, ok := probeID(raw)
	if !ok {
		return
	}
	msg := "invalid request"
	if err != nil {
		msg = err.Error()
	}
	frame := messages.AppendError(s.w.getBuf(), id, &messages.WireError{Code: messages.CodeInvalidRequest, Message: msg})
	if b != nil {
		b.add(frame)
	} else {
		s.w.sendResponse(frame)
	}
}

// probeID extracts a request id from an invalid message, if it has a
// well-formed one.
func probeID(raw []byte) (messages.ID, bool) {
	var probe struct {
		ID messages.ID `json:"id"`
	}
	if messages.Unmarshal(raw, &probe) != nil || !probe.ID.IsValid() {
		return messages.ID{}, false
	}
	return probe.ID, true
}

func (s *session) handleMessage(m *messages.Message, b *batchCollector) error {
	st := s.srv.stats
	switch m.Kind {
	case messages.KindRequest:
		if err := s.countRequest(); err != nil {
			st.countMethod(m.Method)
			return err
		}
		s.handleRequest(m, b)
	case messages.KindNotification:
		s.handleNotification(m)
	case messages.KindResponse:
		st.add(&st.responses)
		s.routeResponse(m)
	}
	return nil
}

func (s *session) handleRequest(m *messages.Message, b *batchCollector) {
	srv := s.srv
	srv.stats.countMethod(m.Method)
	r := &request{s: s, ctx: s.ctx, id: m.ID, method: m.Method, params: m.Params, batch: b}
	spec, ok := srv.methods[m.Method]
	if !ok {
		r.replyError(&messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found: " + m.Method})
		return
	}
	modern, werr := srv.modernRequest(m.Params)
	r.modern = modern
	switch {
	case werr != nil:
		r.replyError(werr)
		return
	case modern && mcpserver.RemovedInModern(m.Method):
		r.replyError(&messages.WireError{Code: messages.CodeMethodNotFound, Message: m.Method + " does not exist in the stateless protocol"})
		return
	case !modern && m.Method == messages.MethodServerDiscover:
		r.replyError(invalidParams("server/discover needs _meta with " + messages.MetaProtocolVersion + " and " + messages.MetaClientCapabilities))
		return
	}
	if !modern && !spec.early && !s.initialized.Load() {
		r.replyError(&messages.WireError{Code: messages.CodeInvalidRequest, Message: "server not initialized"})
		return
	}
	slow := spec.slow
	if spec.prepare != nil {
		var werr *messages.WireError
		if slow, werr = spec.prepare(r); werr != nil {
			r.replyError(werr)
			return
		}
	}
	if srv.opts.Delay > 0 && m.Method != messages.MethodInitialize {
		slow = true
	}
	if !slow {
		s.run(r, spec.handle)
		return
	}
	ctx, cancel := context.WithCancelCause(s.ctx)
	if !s.register(r.id, cancel) {
		cancel(nil)
		r.replyError(&messages.WireError{Code: messages.CodeInvalidRequest, Message: "duplicate request id " + r.id.String()})
		return
	}
	r.ctx = ctx
	s.handlers.Add(1)
	// Owner: this session (s.handlers). Exits when the handler returns;
	// every slow handler returns promptly once r.ctx ends, and r.ctx ends
	// at the latest when the session does.
	go func() {
		defer s.handlers.Done()
		defer cancel(nil)
		defer s.unregister(r.id)
		s.run(r, spec.handle)
	}()
}

// run handles a request and sends its response (unless cancelled).
func (s *session) run(r *request, h handlerFunc) {
	if r.method != messages.MethodInitialize {
		s.srv.stall.wait(r.ctx, s.srv.opts.StallAfter, s.srv.opts.StallFor)
	}
	if d := s.srv.opts.Delay; d > 0 && r.method != messages.MethodInitialize {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
		}
	}
	buf := s.w.getBuf()
	var werr *messages.WireError
	if r.ctx.Err() == nil {
		buf = appendResultPrefix(buf, r.id)
		start := len(buf)
		buf, werr = h(r, buf)
		if r.modern && werr == nil {
			buf = mcpserver.WithResultType(buf, start, r.method)
		}
	}
	if r.ctx.Err() != nil || werr == errNoResponse {
		if context.Cause(r.ctx) == errClientCancelled {
			st := s.srv.stats
			st.add(&st.cancelledCalls)
		}
		s.w.putBuf(buf)
		r.batch.skip()
		return
	}
	if werr != nil {
		buf = messages.AppendError(buf[:0], r.id, werr)
	} else {
		buf = append(buf, '}')
	}
	r.respond(buf)
}

func appendResultPrefix(buf []byte, id messages.ID) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = id.AppendJSON(buf)
	return append(buf, `,"result":`...)
}

func (r *request) respond(frame []byte) {
	if r.batch != nil {
		r.batch.add(frame)
		return
	}
	r.s.w.sendResponse(frame)
}

func (r *request) replyError(werr *messages.WireError) {
	r.respond(messages.AppendError(r.s.w.getBuf(), r.id, werr))
}

func (s *session) handleNotification(m *messages.Message) {
	st := s.srv.stats
	st.add(&st.notifications)
	switch m.Method {
	case messages.NotificationInitialized:
		st.add(&st.initialized)
	case messages.NotificationCancelled:
		st.add(&st.cancellations)
		var p messages.CancelledParams
		if decodeParams(m.Params, &p) == nil && p.RequestID.IsValid() {
			s.cancelRequest(p.RequestID)
		}
	case messages.NotificationRootsListChanged:
		st.add(&st.rootsC)
	}
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

func handlePing(_ *request, buf []byte) ([]byte, *messages.WireError) {
	return append(buf, "{}"...), nil
}
