package streamable

import (
	"context"
	"io"
	"sync"
)

// postCtx is a post's cancellable context. A POST that ended without
// being cancelled hands it back for the next one: net/http derives its
// own context from the request's, which registers a child with it, so a
// fresh context per POST cost its allocation, its cancel function, its
// Done channel and its map of children (five allocations, ~460 B per
// call); a reused one has them all already, and net/http's child is
// removed when its request ends.
//
// It is the post's own, not a child of a connection-wide context: a
// child would leave its parent a map of children for the connection's
// life (~300 B per idle session); Close cancels the live posts instead.
//
// It also closes the answer body its post is reading when it ends
// (watchBody): that watch is registered once per context, with
// context.AfterFunc, not once per POST, where it cost three allocations
// per call (AfterFunc's own context, the callback and its stop function).
// A context is reused only while it was never cancelled, so its one
// AfterFunc runs at most once, when it ends for good.
type postCtx struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	ended bool      // ctx is done: a body watched from now on is closed at once
	body  io.Closer // the answer body being read, nil when none
}

var postCtxs = sync.Pool{New: func() any {
	ctx, cancel := context.WithCancel(context.Background())
	pc := &postCtx{ctx: ctx, cancel: cancel}
	context.AfterFunc(ctx, pc.end)
	return pc
}}

// end closes the watched body, if any, once the context is done.
func (pc *postCtx) end() {
	pc.mu.Lock()
	pc.ended = true
	b := pc.body
	pc.body = nil
	pc.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
}

// watchBody has b closed when the context ends (at once if it has),
// until unwatchBody.
func (pc *postCtx) watchBody(b io.Closer) {
	pc.mu.Lock()
	if pc.ended {
		pc.mu.Unlock()
		_ = b.Close()
		return
	}
	pc.body = b
	pc.mu.Unlock()
}

// unwatchBody ends watchBody: the context's end no longer touches the
// body, so the context may be handed back for another post.
func (pc *postCtx) unwatchBody() {
	pc.mu.Lock()
	pc.body = nil
	pc.mu.Unlock()
}

// takeCtx gives p a context that is not cancelled.
func (p *post) takeCtx() { p.pc = postCtxs.Get().(*postCtx) }

// ctx is p's context, done once p is cancelled.
func (p *post) ctx() context.Context { return p.pc.ctx }

// cancel ends p's requests: its context is done and never reused.
func (p *post) cancel() { p.pc.cancel() }

// releaseCtx hands p's context back for another post when nobody can
// cancel it any more, and cancels it otherwise (reusable false: p was
// aborted, or the connection closed, whose Close cancels the live posts
// it saw): a context once handed back must never be cancelled by p's
// cancellers.
func (p *post) releaseCtx(reusable bool) {
	pc := p.pc
	if !reusable || pc.ctx.Err() != nil {
		pc.cancel()
		return
	}
	postCtxs.Put(pc)
}
