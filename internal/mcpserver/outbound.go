package mcpserver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

var (
	// ErrClientTimeout fails a server request the client did not answer
	// within its timeout (the client is told with notifications/cancelled).
	ErrClientTimeout = errors.New("mcpserver: the client did not answer in time")
	// ErrSessionEnded fails a server request whose session ended first.
	ErrSessionEnded = errors.New("mcpserver: the client session ended")
)

// Outbound holds a session's requests to its client (sampling,
// elicitation, roots) until their answers come back. Its methods are safe
// for concurrent use: requests are sent from handler goroutines, answers
// arrive on whatever goroutine reads the client's messages.
type Outbound struct {
	mu      sync.Mutex
	next    int64
	pending map[int64]chan messages.Message
}

// Call sends a request to the client through send (the frame is send's
// from then on) and waits for its answer. It returns the result, or the
// client's *messages.WireError; or, with notifications/cancelled sent the
// same way, ctx's error or ErrClientTimeout (never, if timeout <= 0); or
// ErrSessionEnded once ended is closed (nil: never).
func (o *Outbound) Call(ctx context.Context, send func(frame []byte), method string, params messages.RawMessage, timeout time.Duration, ended <-chan struct{}) (messages.RawMessage, error) {
	select {
	case <-ended:
		return nil, ErrSessionEnded
	default:
	}
	ch := make(chan messages.Message, 1)
	o.mu.Lock()
	if o.pending == nil {
		o.pending = make(map[int64]chan messages.Message)
	}
	o.next++
	id := o.next
	o.pending[id] = ch
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		delete(o.pending, id)
		o.mu.Unlock()
	}()
	send(messages.AppendRequest(nil, messages.NumberID(id), method, params))

	var expired <-chan time.Time // never, without a timeout
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	var reason error
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ended:
		return nil, ErrSessionEnded
	case <-ctx.Done():
		reason = ctx.Err()
	case <-expired:
		reason = ErrClientTimeout
	}
	cp, _ := messages.Marshal(&messages.CancelledParams{RequestID: messages.NumberID(id), Reason: reason.Error()})
	send(messages.AppendNotification(nil, messages.NotificationCancelled, cp))
	return nil, reason
}

// Answer hands a client response to the request waiting for it; it
// reports false when none waits (an unknown id, or one given up on).
func (o *Outbound) Answer(m *messages.Message) bool {
	n, ok := m.ID.Int64()
	if !ok {
		return false
	}
	o.mu.Lock()
	ch := o.pending[n]
	delete(o.pending, n)
	o.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- *m // capacity 1, one sender: never blocks
	return true
}
