package demoserver

import (
	"context"

	"github.com/mcpengine/mcpengine/messages"
)

// notify sends a notification; params are already encoded (nil for none).
func (s *session) notify(method string, params []byte) {
	s.w.send(messages.AppendNotification(s.w.getBuf(), method, params))
}

// call sends a request to the client and waits for its answer. It returns
// the result, or the client's *messages.WireError, or ctx's error or
// mcpserver.ErrClientTimeout (after telling the client with
// notifications/cancelled).
func (s *session) call(ctx context.Context, method string, params any) (messages.RawMessage, error) {
	raw, err := messages.Marshal(params)
	if err != nil {
		return nil, err
	}
	st := s.srv.stats
	st.add(&st.serverRequests)
	return s.outbound.Call(ctx, s.w.send, method, raw, s.srv.opts.ClientRequestTimeout, nil)
}

// routeResponse hands a client response to the server request waiting for
// it.
func (s *session) routeResponse(m *messages.Message) {
	if !s.outbound.Answer(m) {
		st := s.srv.stats
		st.add(&st.unexpected)
	}
}
