package mcpengine

import (
	"context"
	"time"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// CallOption adjusts one request.
type CallOption func(*actors.Call)

// WithTimeout sets this request's timeout (default: the session's, 60s).
// The caller's ctx deadline applies as well; the earlier one wins.
func WithTimeout(d time.Duration) CallOption { return func(c *actors.Call) { c.Timeout = d } }

// WithProgress asks the server for progress notifications: the engine
// generates the progress token and calls fn for each notification, in
// order, on the session's callback dispatcher.
func WithProgress(fn func(messages.ProgressParams)) CallOption {
	return func(c *actors.Call) { c.Progress = fn }
}

// WithResetOnProgress extends the request's timeout each time progress
// arrives, but never beyond maxTotal after it was sent (0: no cap). It
// implies progress notifications are requested.
func WithResetOnProgress(maxTotal time.Duration) CallOption {
	return func(c *actors.Call) {
		c.ResetOnProgress = true
		c.MaxTotal = maxTotal
		if c.Progress == nil {
			c.Progress = func(messages.ProgressParams) {}
		}
	}
}

// FailFast makes the request fail with ErrNotReady instead of waiting while
// the session (re)connects.
func FailFast() CallOption { return func(c *actors.Call) { c.FailFast = true } }

// Call sends a raw request and returns its raw result. params may be nil,
// a messages.RawMessage/[]byte holding JSON, or any value to encode. If ctx
// ends first, the request is cancelled on the server (notifications/
// cancelled) and ctx.Err() is returned; when that was its deadline, a
// *TimeoutError that matches both ErrTimeout and context.DeadlineExceeded.
func (s *Session) Call(ctx context.Context, method string, params any, opts ...CallOption) (messages.RawMessage, error) {
	c, err := s.newCall(ctx, method, params, opts)
	if err != nil {
		return nil, err
	}
	span := c.Span // the actor owns c.Span once posted
	s.h.Send(ctx, c)
	select {
	case <-c.Done():
		return c.Result, c.Err
	case <-ctx.Done():
		err := ctxEndedError(ctx, method)
		span.Cancelled(err)
		s.h.Cancel(c, err)
		return nil, err
	case <-s.sh.Closed():
		return s.afterClose(c)
	}
}

// CallAsync sends a raw request and returns a Future at once. ctx's
// deadline bounds the request and ctx's cancellation cancels it.
func (s *Session) CallAsync(ctx context.Context, method string, params any, opts ...CallOption) *Future {
	c, err := s.newCall(ctx, method, params, opts)
	if err != nil {
		return failedFuture(err)
	}
	f := &Future{c: c, s: s, span: c.Span}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() {
			err := ctxEndedError(ctx, method)
			f.span.Cancelled(err)
			s.h.Cancel(c, err)
		})
		f.stopWatch = stop
	}
	s.h.Post(c)
	return f
}

func (s *Session) newCall(ctx context.Context, method string, params any, opts []CallOption) (*actors.Call, error) {
	if ctx.Err() != nil {
		return nil, ctxEndedError(ctx, method)
	}
	raw, err := encodeParams(params)
	if err != nil {
		return nil, err
	}
	c := actors.NewCall(method, raw)
	if dl, ok := ctx.Deadline(); ok {
		c.Deadline = dl
	}
	for _, o := range opts {
		o(c)
	}
	if tel := s.engine.tel; tel != nil {
		s.traceCall(ctx, tel, c)
	}
	return c, nil
}

// afterClose prefers a result the actor delivered just before closing.
func (s *Session) afterClose(c *actors.Call) (messages.RawMessage, error) {
	select {
	case <-c.Done():
		return c.Result, c.Err
	default:
		return nil, &ClosedError{Cause: s.sh.CloseErr()}
	}
}

func encodeParams(params any) (messages.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case messages.RawMessage:
		return p, nil
	case []byte:
		return p, nil
	}
	return messages.Marshal(params)
}

// Notify sends a raw notification once the session is ready.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return err
	}
	n := actors.NewNotify(method, raw)
	s.h.PostNotify(n)
	select {
	case <-n.Done():
		return n.Err
	case <-ctx.Done():
		return ctx.Err()
	case <-s.sh.Closed():
		return &ClosedError{Cause: s.sh.CloseErr()}
	}
}

// decode turns a raw result from Call into T in the caller's goroutine. The
// result aliases the received frame, which nothing modifies, so T's strings
// may alias it too (UnmarshalOwned) instead of being copied.
func decode[T any](raw messages.RawMessage, err error) (*T, error) {
	return decodeWith[T](messages.UnmarshalOwned, raw, err)
}

// decodeWith decodes with the given codec function.
func decodeWith[T any](unmarshal func([]byte, any) error, raw messages.RawMessage, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	var out T
	if len(raw) == 0 {
		return &out, nil
	}
	if err := unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
