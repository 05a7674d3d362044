package mcpengine

import (
	"context"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
)

// Future is the pending result of an asynchronous request. It is the
// engine's own type: a closed channel and two fields, no actor round trip
// (protoactor's RequestFuture costs several microseconds and races its
// timeout against the reply).
type Future struct {
	c         *actors.Call
	s         *Session
	stopWatch func() bool
	err       error // set for futures that failed before being sent
	span      *telemetry.CallSpan
	done      chan struct{}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func failedFuture(err error) *Future { return &Future{err: err, done: closedChan} }

// Done is closed when the result is available.
func (f *Future) Done() <-chan struct{} {
	if f.c == nil {
		return f.done
	}
	return f.c.Done()
}

// Await waits for the result or for ctx. Ending ctx does not cancel the
// request (another goroutine may still await it); use Cancel for that.
func (f *Future) Await(ctx context.Context) (messages.RawMessage, error) {
	if f.c == nil {
		return nil, f.err
	}
	select {
	case <-f.c.Done():
		f.release()
		return f.c.Result, f.c.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-f.s.sh.Closed():
		return f.s.afterClose(f.c)
	}
}

// Result returns the result if Done is closed, or ok=false.
func (f *Future) Result() (result messages.RawMessage, err error, ok bool) {
	select {
	case <-f.Done():
	default:
		return nil, nil, false
	}
	if f.c == nil {
		return nil, f.err, true
	}
	f.release()
	return f.c.Result, f.c.Err, true
}

// Cancel abandons the request: it fails with context.Canceled and, if it
// was sent, the server gets notifications/cancelled.
func (f *Future) Cancel() {
	if f.c == nil {
		return
	}
	f.release()
	f.span.Cancelled(context.Canceled)
	f.s.h.Cancel(f.c, context.Canceled)
}

func (f *Future) release() {
	if f.stopWatch != nil {
		f.stopWatch()
	}
}
