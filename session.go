package mcpengine

import (
	"context"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
)

// Session is one supervised connection to an MCP server. All methods are
// safe for concurrent use.
type Session struct {
	name   string
	engine *Engine
	h      *actors.Handle
	sh     *actors.Shared
	peer   *telemetry.Peer // nil when telemetry is off
	tasks  taskTools
	// served are the tasks the server asked this client to run.
	served *servedTasks
	// results are the session's cached CacheableResults (result_cache.go).
	results sessionResults
	// headers are the Mcp-Param-* arguments of its tools (tool_headers.go).
	headers atomic.Pointer[headerTools]
}

// Name is the session's name.
func (s *Session) Name() string { return s.name }

// State is the current lifecycle state.
func (s *Session) State() State { return s.sh.State() }

// LastError is the most recent connection failure, if any.
func (s *Session) LastError() error { return s.sh.LastError() }

// WaitReady blocks until the session is ready, ctx ends, or the session
// closes for good (then the close cause is returned).
func (s *Session) WaitReady(ctx context.Context) error {
	for {
		// The state is looked at before the change channel is taken, so
		// that a session found ready leaves none behind (it would be kept
		// until the next change: ~100 B per idle session), and again
		// after, so that a change in between is not missed.
		if done, err := s.readyOrClosed(); done {
			return err
		}
		changed := s.sh.StateChanged()
		if done, err := s.readyOrClosed(); done {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			if last := s.LastError(); last != nil {
				return &waitError{ctx: ctx.Err(), last: last}
			}
			return ctx.Err()
		}
	}
}

// readyOrClosed reports whether WaitReady is over, and with what.
func (s *Session) readyOrClosed() (bool, error) {
	switch s.sh.State() {
	case StateReady:
		return true, nil
	case StateClosed:
		return true, s.closedError()
	}
	return false, nil
}

type waitError struct{ ctx, last error }

func (e *waitError) Error() string {
	return e.ctx.Error() + " (last connection error: " + e.last.Error() + ")"
}
func (e *waitError) Unwrap() []error { return []error{e.ctx, e.last} }

// WatchState calls fn for every state change, in order, on the session's
// callback dispatcher. It returns a function that stops the watch.
func (s *Session) WatchState(fn func(StateChange)) (stop func()) {
	return s.sh.WatchState(fn)
}

// OnNotification calls fn for every server notification except progress
// (which goes to the call that asked for it), in order, on the session's
// callback dispatcher, never on the connection's reader. It returns a
// function that stops the subscription.
//
// In 2026-07-28 a handler is what makes the session listen for the list
// changes the server declares (subscriptions/listen, see Listen); the
// listen closes when the last handler stops and nothing else is wanted.
func (s *Session) OnNotification(fn func(Notification)) (stop func()) {
	stopWatch := s.sh.WatchNotifications(func(n actors.Notification) { fn(publicNotification(n)) })
	s.h.RefreshListen()
	return func() {
		stopWatch()
		s.h.RefreshListen()
	}
}

// ProtocolVersion is the negotiated version ("" before the first handshake).
func (s *Session) ProtocolVersion() string {
	if n := s.sh.Negotiated(); n != nil {
		return n.ProtocolVersion
	}
	return ""
}

// ServerInfo is the server's implementation info from the last handshake.
func (s *Session) ServerInfo() messages.Implementation {
	if n := s.sh.Negotiated(); n != nil {
		return n.ServerInfo
	}
	return messages.Implementation{}
}

// Capabilities are the server's declared capabilities.
func (s *Session) Capabilities() messages.ServerCapabilities {
	if n := s.sh.Negotiated(); n != nil {
		return n.Capabilities
	}
	return messages.ServerCapabilities{}
}

// Instructions are the server's usage instructions, if it gave any.
func (s *Session) Instructions() string {
	if n := s.sh.Negotiated(); n != nil {
		return n.Instructions
	}
	return ""
}

// Stats returns a snapshot of the session's counters (frames in and out,
// invalid frames discarded, late responses, restarts, requests,
// timeouts).
func (s *Session) Stats() Stats { return statsOf(s.sh.Stats()) }

// SetRoots replaces the roots the engine answers to roots/list and sends
// notifications/roots/list_changed.
func (s *Session) SetRoots(roots []messages.Root) { s.h.SetRoots(roots) }

// Close closes the session: waiting and in-flight calls fail with
// ErrSessionClosed, the server is shut down (stdin closed, then SIGTERM,
// then SIGKILL), all within ctx.
func (s *Session) Close(ctx context.Context) error {
	err := s.h.Close(ctx)
	if serr := s.served.close(ctx); err == nil {
		err = serr
	}
	s.engine.forget(s.name, s, err != nil)
	return err
}

// closedError is what a call gets once the session closed for good.
func (s *Session) closedError() error {
	return &ClosedError{Cause: s.sh.CloseErr()}
}
