package mcpengine

import (
	"context"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
)

// Future is the pending result of an asynchronous request, decoded as T
// when it is read: CallAsync gives a Future[messages.RawMessage] (the raw
// result, nothing decoded), CallToolAsync a
// Future[*messages.CallToolResult]. It is the engine's own type: a closed
// channel and a few fields, no actor round trip (protoactor's
// RequestFuture costs several microseconds and races its timeout against
// the reply).
type Future[T any] struct {
	c         *actors.Call
	s         *Session
	stopWatch func() bool
	err       error // set for futures that failed before being sent
	span      *telemetry.CallSpan
	done      chan struct{}
	// decode turns the raw result into T on the reading goroutine, as the
	// blocking forms do after Call returns.
	decode func(messages.RawMessage) (T, error)
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func failedFuture[T any](err error) *Future[T] { return &Future[T]{err: err, done: closedChan} }

// rawResult is the decoder of a Future[messages.RawMessage].
func rawResult(raw messages.RawMessage) (messages.RawMessage, error) { return raw, nil }

// decodeResult is the decoder of a Future[*R]. The result aliases the
// received frame, which nothing modifies, so R's strings may alias it too.
func decodeResult[R any](raw messages.RawMessage) (*R, error) {
	return decode[R](raw, nil)
}

// Done is closed when the result is available.
func (f *Future[T]) Done() <-chan struct{} {
	if f.c == nil {
		return f.done
	}
	return f.c.Done()
}

// Await waits for the result or for ctx, and decodes it. Ending ctx does
// not cancel the request (another goroutine may still await it); use
// Cancel for that. Each Await decodes the result anew.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	if f.c == nil {
		var zero T
		return zero, f.err
	}
	select {
	case <-f.c.Done():
		f.release()
		return f.result(f.c.Result, f.c.Err)
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	case <-f.s.sh.Closed():
		return f.result(f.s.afterClose(f.c))
	}
}

// Result returns the decoded result if Done is closed; ok is false (and
// nothing is decoded) while the request is still pending.
func (f *Future[T]) Result() (result T, ok bool, err error) {
	select {
	case <-f.Done():
	default:
		return result, false, nil
	}
	if f.c == nil {
		return result, true, f.err
	}
	f.release()
	result, err = f.result(f.c.Result, f.c.Err)
	return result, true, err
}

func (f *Future[T]) result(raw messages.RawMessage, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return f.decode(raw)
}

// Cancel abandons the request: it fails with context.Canceled and, if it
// was sent, the server gets notifications/cancelled.
func (f *Future[T]) Cancel() {
	if f.c == nil {
		return
	}
	f.release()
	f.span.Cancelled(context.Canceled)
	f.s.h.Cancel(f.c, context.Canceled)
}

func (f *Future[T]) release() {
	if f.stopWatch != nil {
		f.stopWatch()
	}
}
