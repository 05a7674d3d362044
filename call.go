package mcpengine

import (
	"context"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

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
		if c.Err != nil {
			return nil, c.Err
		}
		return c.Result, nil
	case <-ctx.Done():
		err := ctxEndedError(ctx, method)
		span.Cancelled(err)
		s.h.Cancel(c, err)
		return nil, err
	case <-s.sh.Closed():
		return s.afterClose(c)
	}
}

// CallAsync sends a raw request and returns a Future of its raw result at
// once. ctx's deadline bounds the request and ctx's cancellation cancels
// it.
func (s *Session) CallAsync(ctx context.Context, method string, params any, opts ...CallOption) *Future[messages.RawMessage] {
	return callAsync(ctx, s, method, params, opts, rawResult)
}

// callAsync posts a request and returns its Future, whose reader decodes
// the result with decode.
func callAsync[T any](ctx context.Context, s *Session, method string, params any, opts []CallOption, decode func(messages.RawMessage) (T, error)) *Future[T] {
	c, err := s.newCall(ctx, method, params, opts)
	if err != nil {
		return failedFuture[T](err)
	}
	f := &Future[T]{c: c, s: s, span: c.Span, decode: decode}
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
		if o.apply != nil {
			o.apply(c)
		}
	}
	if c.Err != nil { // an option that could not be applied (WithMeta)
		return nil, c.Err
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
		return nil, s.closedError()
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
	case *messages.CallToolParams:
		// Not through Marshal: a process's first tools/call would wait for
		// sonic to compile CallToolParams' encoder.
		return messages.MarshalCallToolParams(p)
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
		return s.closedError()
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
