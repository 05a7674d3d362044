package cluster

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
)

// Watcher follows one session wherever it is owned: its state and
// initialize result (Status) and its server's notifications, delivered
// to the callback given to Watch in order, from one actor. The watch is
// a lease on the owner's grain, renewed every provider poll interval (and
// at once when the owner's connection ends), so after a hand-over it is
// renewed on the new owner, which it activates: a watched session is
// kept open. Server requests related to no call may be sent to a
// watcher (Config.ServerRequests answers them).
type Watcher struct {
	s       *RemoteSession
	pid     *actor.PID
	onEvent func(Event)

	mu     sync.Mutex
	status Status

	kick chan struct{} // buffered 1: renew now
	stop chan struct{}
	done chan struct{}
}

// Status is a watched session's state on its owner.
type Status struct {
	// State is the owner's session state ("ready", "connecting", …), or
	// "unreachable" while no owner answered the last renewal.
	State string
	// Owner is the owner's remote address ("" while unreachable).
	Owner string
	// Initialize is the server's initialize (or discover) result as
	// JSON: protocolVersion, capabilities, serverInfo, instructions.
	Initialize json.RawMessage
	LastError  string
	Restarts   uint64
}

// StateUnreachable is Status.State while no owner answers.
const StateUnreachable = "unreachable"

// Event is one thing that happened to a watched session: a server
// notification (Method, Params), or a new Status.
type Event struct {
	Method string
	Params json.RawMessage
	// Status is set for a state change (and on an owner change).
	Status *Status
}

// renewed is posted by the renewal goroutine to the watcher's actor.
type renewed struct {
	st  *clusterpb.SessionStatus
	err error
}

// Watch starts following the session; onEvent gets every event, one at a
// time, and must not block for long. Close stops it.
func (s *RemoteSession) Watch(onEvent func(Event)) *Watcher {
	w := &Watcher{s: s, onEvent: onEvent, status: Status{State: StateUnreachable},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.pid = s.m.system.Root.Spawn(actor.PropsFromFunc(w.receive))
	// The renewal loop: owned by the Watcher, exits when Close closes
	// stop.
	go w.renewLoop()
	return w
}

// Status is the session's state as last heard.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// Renew asks the owner again now (a call just found the owner gone, say).
func (w *Watcher) Renew() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Close stops the watch (the owner's lease lapses by itself).
func (w *Watcher) Close() {
	close(w.stop)
	<-w.done
	_ = w.s.m.system.Root.StopFuture(w.pid).Wait()
}

func (w *Watcher) renewLoop() {
	defer close(w.done)
	m := w.s.m
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*activationTimeout)
		reply, err := w.s.request(ctx, "watch", &clusterpb.SessionWatch{Address: m.system.Address(), Id: w.pid.Id})
		cancel()
		r := &renewed{err: err}
		if err == nil {
			r.st = reply.Status
		}
		m.system.Root.Send(w.pid, r)
		every := m.cfg.watchRenew()
		if err != nil || reply.Status == nil || reply.Status.State != mcpengine.StateReady.String() {
			every = retryMax
		}
		t := time.NewTimer(every)
		select {
		case <-t.C:
		case <-w.kick:
			t.Stop()
		case <-w.stop:
			t.Stop()
			return
		}
	}
}

// receive is the watcher's actor: it alone changes status and calls
// onEvent.
func (w *Watcher) receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *renewed:
		st := Status{State: StateUnreachable}
		if msg.err != nil {
			st.LastError = msg.err.Error()
		}
		if msg.st != nil {
			st = statusOf(msg.st)
		}
		w.setStatus(ctx, st)
	case *clusterpb.SessionEvent:
		if msg.Status != nil {
			w.setStatus(ctx, statusOf(msg.Status))
			return
		}
		w.onEvent(Event{Method: msg.Method, Params: msg.Params})
	case *clusterpb.ServerRequest:
		w.s.m.serveRequest(ctx.Sender(), msg)
	case *ownerGone:
		w.Renew()
	case *actor.Stopping:
		if o := w.Status().Owner; o != "" {
			w.s.m.calls.remove(o, ctx.Self())
		}
	}
}

func (w *Watcher) setStatus(ctx actor.Context, st Status) {
	w.mu.Lock()
	old := w.status
	w.status = st
	w.mu.Unlock()
	if old.Owner != st.Owner {
		// Told when the new owner's connection ends (callWatch).
		if old.Owner != "" {
			w.s.m.calls.remove(old.Owner, ctx.Self())
		}
		if st.Owner != "" {
			w.s.m.calls.add(st.Owner, ctx.Self())
		}
	}
	if old.State == st.State && old.Owner == st.Owner && old.Restarts == st.Restarts && string(old.Initialize) == string(st.Initialize) {
		return
	}
	w.onEvent(Event{Status: &st})
}

func statusOf(p *clusterpb.SessionStatus) Status {
	return Status{State: p.State, Owner: p.Owner, Initialize: p.Initialize, LastError: p.LastError, Restarts: p.Restarts}
}
