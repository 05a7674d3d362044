package demoserver

import (
	"context"
	"errors"

	"time"

	"github.com/mcpengine/mcpengine/messages"
)

var errClientTimeout = errors.New("demoserver: the client did not answer in time")

// notify sends a notification; params are already encoded (nil for none).
func (s *session) notify(method string, params []byte) {
	s.w.send(messages.AppendNotification(s.w.getBuf(), method, params))
}

// call sends a request to the client and waits for its answer. It returns
// the result, or the client's *messages.WireError, or ctx's error or
// errClientTimeout (after telling the client with notifications/cancelled).
func (s *session) call(ctx context.Context, method string, params any) (messages.RawMessage, error) {
	raw, err := messages.Marshal(params)
	if err != nil {
		return nil, err
	}
	id := s.nextID.Add(1)
	ch := make(chan messages.Message, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	st := s.srv.stats
	st.add(&st.serverRequests)
	s.w.send(messages.AppendRequest(s.w.getBuf(), messages.NumberID(id), method, raw))

	timer := time.NewTimer(s.srv.opts.ClientRequestTimeout)
	defer timer.Stop()
	var reason error
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		reason = ctx.Err()
	case <-timer.C:
		reason = errClientTimeout
	}
	cp, _ := messages.Marshal(&messages.CancelledParams{RequestID: messages.NumberID(id), Reason: reason.Error()})
	s.notify(messages.NotificationCancelled, cp)
	return nil, reason
}

// routeResponse hands a client response to the server request waiting for
// it.
func (s *session) routeResponse(m *messages.Message) {
	var ch chan messages.Message
	if n, ok := m.ID.Int64(); ok {
		s.mu.Lock()
		ch = s.pending[n]
		delete(s.pending, n)
		s.mu.Unlock()
	}
	if ch == nil {
		st := s.srv.stats
		st.add(&st.unexpected)
		return
	}
	ch <- *m // capacity 1, one sender: never blocks
}
