package streamable

import (
	"context"
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
type postCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

var postCtxs = sync.Pool{New: func() any {
	ctx, cancel := context.WithCancel(context.Background())
	return &postCtx{ctx: ctx, cancel: cancel}
}}

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
