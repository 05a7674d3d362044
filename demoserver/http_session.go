package demoserver

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/transport"
)

// httpSession is one client session of an HTTP transport: the Serve call
// behind it and what the handler needs to find and end it.
type httpSession struct {
	id   string
	conn transport.Conn // what Serve runs on
	end  func()         // asks the session to end as if its client left

	streamable *httpConn   // Streamable HTTP sessions
	legacy     *legacyConn // legacy HTTP+SSE sessions

	done chan struct{} // closed when Serve returned
	err  error         // Serve's result; read only after done

	requests atomic.Int64 // request POSTs (ExpireAfter)

	lease *mcpserver.Lease // HTTP requests in progress, SessionIdleTimeout; ended when Serve returned
}

// crashed reports whether the session ended by a fault that stands for a
// server that died or hung up (ExitAfter, CloseAfter): the connections
// still open are then aborted rather than ended cleanly. Call it after
// done is closed.
func (s *httpSession) crashed() bool {
	return errors.Is(s.err, ErrExitRequested) || errors.Is(s.err, ErrCloseRequested)
}

// hub owns the sessions of one HTTP handler: it starts their Serve calls,
// finds them by id, ends them, and waits for them on Close.
type hub struct {
	srv  *Server
	o    *HTTPOptions
	kind string // for logs: "http", "sse", "ws"

	ctx    context.Context // every Serve's context; cancelled to force them
	cancel context.CancelFunc

	sessions mcpserver.Table[*httpSession]
	wg       sync.WaitGroup // Serve calls
}

func newHub(srv *Server, o *HTTPOptions, kind string) *hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &hub{srv: srv, o: o, kind: kind, ctx: ctx, cancel: cancel}
}

var errHubClosed = errors.New("demoserver: the handler is closed")

// add registers a session; it fails once the hub is closing.
func (h *hub) add(s *httpSession) error {
	s.done = make(chan struct{})
	s.lease = mcpserver.NewLease(h.o.SessionIdleTimeout, func() {
		h.srv.opts.Logger.Debug("demoserver: HTTP session idle, ending it", "session", s.id)
		h.end(s)
	})
	if !h.sessions.Add(s.id, s, func() { h.wg.Add(1) }) {
		return errHubClosed
	}
	return nil
}

// start registers a session and runs its Serve call on a goroutine of its
// own (Streamable HTTP and legacy sessions outlive any one HTTP request).
func (h *hub) start(s *httpSession) error {
	if err := h.add(s); err != nil {
		return err
	}
	// Owner: the hub (h.wg). Exits when Serve returns: the session was
	// deleted, expired or ended by Close (its inbox reached EOF), a fault
	// ended it, or h.ctx was cancelled by a Close that ran out of time.
	go h.serve(s)
	return nil
}

// serve runs a registered session's Serve call and cleans up after it.
// The WebSocket handler calls it inline.
func (h *hub) serve(s *httpSession) {
	defer h.wg.Done()
	err := h.srv.Serve(h.ctx, s.conn)
	s.err = err
	close(s.done)
	h.forget(s)
	s.lease.End()
	h.srv.opts.Logger.Debug("demoserver: HTTP session ended", "transport", h.kind, "session", s.id, "err", err)
	if h.o.SessionEnded != nil {
		h.o.SessionEnded(s.id, err)
	}
}

func (h *hub) forget(s *httpSession) { h.sessions.Remove(s.id, s) }

// lookup finds a live session and counts an HTTP request in progress on
// it; the caller calls release when the request is over.
func (h *hub) lookup(id string) *httpSession {
	s, _ := h.sessions.Get(id)
	if s == nil || !s.lease.Hold() {
		return nil
	}
	return s
}

// hold counts an HTTP request in progress on a session just started;
// release ends it.
func (h *hub) hold(s *httpSession) { s.lease.Hold() }

// release ends an HTTP request counted by lookup or hold; the last one
// arms the idle timeout.
func (h *hub) release(s *httpSession) { s.lease.Release() }

// end forgets a session at once (later requests for it get 404) and asks
// it to end; Serve returns soon after.
func (h *hub) end(s *httpSession) {
	h.forget(s)
	s.end()
}

// endID ends the session with this id, if it is live.
func (h *hub) endID(id string) bool {
	s, _ := h.sessions.Get(id)
	if s == nil {
		return false
	}
	h.end(s)
	return true
}

// ids lists the live sessions.
func (h *hub) ids() []string { return h.sessions.IDs() }

// endAll ends every live session and returns how many there were.
func (h *hub) endAll() int {
	all := h.sessions.All()
	for _, s := range all {
		h.end(s)
	}
	return len(all)
}

// close refuses new sessions, ends the live ones and waits for their Serve
// calls. If ctx ends first it cancels them outright, waits for them to
// return (promptly: Serve honours its context) and returns ctx's error.
func (h *hub) close(ctx context.Context) error {
	for _, s := range h.sessions.Close() {
		h.end(s)
	}
	done := make(chan struct{})
	// Owner: this call. Exits when every Serve call returned, which the
	// cancel below guarantees at the latest.
	go func() {
		h.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	h.cancel()
	<-done
	return err
}
