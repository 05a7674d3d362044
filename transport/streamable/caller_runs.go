package streamable

import "github.com/mcpengine/mcpengine/messages"

// holds are the requests a waiting caller will send itself
// (transport.RequestConn). An entry lives from HoldRequest to RunRequest
// or ReleaseRequest: a few microseconds, so there are rarely more than
// one or two, and a scan beats a map (no hashing, no buckets to keep).
type holds struct {
	r []heldRequest
}

// heldRequest is one held request: p is nil until its frame is written.
type heldRequest struct {
	id messages.ID
	p  *post
}

// keptHolds is the largest backing array the connection keeps once its
// holds are gone.
const keptHolds = 4

// findLocked returns the index of id's entry, or -1; c.mu is held.
func (c *conn) findHoldLocked(id messages.ID) int {
	if c.holds == nil {
		return -1
	}
	for i := range c.holds.r {
		if c.holds.r[i].id == id {
			return i
		}
	}
	return -1
}

// dropHoldLocked removes entry i and returns its post; c.mu is held.
func (c *conn) dropHoldLocked(i int) *post {
	r := c.holds.r
	p := r[i].p
	last := len(r) - 1
	r[i] = r[last]
	r[last] = heldRequest{}
	c.holds.r = r[:last]
	if last == 0 && cap(r) > keptHolds {
		c.holds.r = nil
	}
	return p
}

// HoldRequest implements transport.RequestConn.
func (c *conn) HoldRequest(id messages.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.legacy != nil || c.holding {
		return false // the frame goes as any other
	}
	if c.holds == nil {
		c.holds = &holds{}
	}
	c.holds.r = append(c.holds.r, heldRequest{id: id})
	return true
}

// keepForCallerLocked reports whether p, just written, is kept for its
// caller instead of started; c.mu is held. Only a frame of that one
// request is kept.
func (c *conn) keepForCallerLocked(p *post) bool {
	if c.holds == nil || len(c.holds.r) == 0 || len(p.pend) != 1 || p.out.Notification {
		return false
	}
	i := c.findHoldLocked(p.pend[0].id)
	if i < 0 || c.holds.r[i].p != nil || len(p.out.Requests) != 1 || p.out.Cancel.IsValid() {
		return false
	}
	c.holds.r[i].p = p
	return true
}

// RunRequest implements transport.RequestConn: the held POST runs here,
// accounted as one of the scheduler's jobs (Close cancels it and waits for
// it; it starts only where Submit would have started it at once).
func (c *conn) RunRequest(id messages.ID) bool {
	c.mu.Lock()
	i := c.findHoldLocked(id)
	if i < 0 {
		c.mu.Unlock()
		return false
	}
	p := c.dropHoldLocked(i)
	if p != nil {
		p.inline = true
	}
	c.mu.Unlock()
	if p == nil {
		return false // not sent yet: Send starts it
	}
	if c.sched.RunHere(p) {
		return true
	}
	c.mu.Lock()
	p.inline = false
	c.mu.Unlock()
	c.start(p)
	return false
}

// ReleaseRequest implements transport.RequestConn.
func (c *conn) ReleaseRequest(id messages.ID) {
	c.mu.Lock()
	i := c.findHoldLocked(id)
	var p *post
	if i >= 0 {
		p = c.dropHoldLocked(i)
	}
	c.mu.Unlock()
	if p != nil {
		c.start(p)
	}
}

// AbortRequest implements transport.RequestConn. A POST running on its
// caller's goroutine is cancelled at once: the caller must return by its
// deadline even when the server answers nothing, not even the
// notifications/cancelled that the session sends as well.
func (c *conn) AbortRequest(id messages.ID) {
	c.mu.Lock()
	var unstarted, running *post
	if i := c.findHoldLocked(id); i >= 0 {
		unstarted = c.dropHoldLocked(i)
	}
	if pd := c.inflight.get(id); pd != nil && !pd.done && (pd.post == unstarted || pd.post.inline) {
		pd.abandoned = true
		pd.post.aborted = true
		running = pd.post
	}
	c.mu.Unlock()
	if running != nil {
		running.cancel()
	}
	if unstarted != nil {
		c.start(unstarted) // cancelled: it ends at once, and finish forgets it
	}
}

// start hands a written post that was kept for its caller to the
// scheduler after all; once the connection closed, it only forgets it.
func (c *conn) start(p *post) {
	if !c.sched.Submit(p, false) {
		c.finish(p)
	}
}
