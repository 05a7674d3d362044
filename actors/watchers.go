package actors

import (
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/mcpstate"
)

// watchers are the embedder's subscriptions to a session's notifications
// and state changes. Any goroutine adds and removes them, under mu; the
// session actor reads them to hand each event to the callback queue.
type watchers struct {
	mu     sync.Mutex
	next   int
	notify map[int]func(Notification)
	state  map[int]func(mcpstate.StateChange)
	// hasNotify is len(notify) > 0, read by the actor without the lock.
	hasNotify atomic.Bool
}

// WatchNotifications registers fn for every server notification other than
// progress; it runs on the session's callback queue. The returned func
// removes it.
func (sh *Shared) WatchNotifications(fn func(Notification)) func() {
	w := &sh.watchers
	w.mu.Lock()
	id := w.next
	w.next++
	if w.notify == nil {
		w.notify = map[int]func(Notification){}
	}
	w.notify[id] = fn
	w.hasNotify.Store(true)
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.notify, id)
		w.hasNotify.Store(len(w.notify) > 0)
		w.mu.Unlock()
	}
}

// WatchState registers fn for every state change, in order, on the
// session's callback queue. The returned func removes it.
func (sh *Shared) WatchState(fn func(mcpstate.StateChange)) func() {
	w := &sh.watchers
	w.mu.Lock()
	id := w.next
	w.next++
	if w.state == nil {
		w.state = map[int]func(mcpstate.StateChange){}
	}
	w.state[id] = fn
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.state, id)
		w.mu.Unlock()
	}
}

// publishState records a state change (session actor only) and hands it
// to the state watchers.
func (sh *Shared) publishState(ch mcpstate.StateChange) {
	f := &sh.facts
	f.state.Store(int32(ch.To))
	if ch.Err != nil {
		f.lastErr.Store(&errBox{ch.Err})
	}
	f.stateMu.Lock()
	if f.stateCh != nil { // nobody waits otherwise: the next StateChanged makes one
		close(f.stateCh)
		f.stateCh = nil
	}
	f.stateMu.Unlock()

	w := &sh.watchers
	w.mu.Lock()
	if len(w.state) == 0 {
		w.mu.Unlock()
		return
	}
	fns := make([]func(mcpstate.StateChange), 0, len(w.state))
	for _, fn := range w.state {
		fns = append(fns, fn)
	}
	w.mu.Unlock()
	sh.postCallback(func() {
		for _, fn := range fns {
			fn(ch)
		}
	})
}

// deliverNotification hands a server notification to the tap and the
// notification watchers (session actor only).
func (sh *Shared) deliverNotification(n Notification) {
	if tap := sh.cfg.NotificationTap; tap != nil {
		tap(n)
	}
	w := &sh.watchers
	if !w.hasNotify.Load() {
		return
	}
	w.mu.Lock()
	fns := make([]func(Notification), 0, len(w.notify))
	for _, fn := range w.notify {
		fns = append(fns, fn)
	}
	w.mu.Unlock()
	sh.postCallback(func() {
		for _, fn := range fns {
			fn(n)
		}
	})
}
