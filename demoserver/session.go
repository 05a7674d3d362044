package demoserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// shutdownFlushTimeout bounds how long a session that is ending waits for
// its queued frames to be written before closing the connection anyway.
const shutdownFlushTimeout = 5 * time.Second

var (
	// errClientCancelled is the cancellation cause of a request the client
	// cancelled with notifications/cancelled.
	errClientCancelled = errors.New("demoserver: cancelled by the client")
	// errSessionEnded is the cancellation cause of everything still running
	// when a session ends.
	errSessionEnded = errors.New("demoserver: session ended")
)

// session is the state of one connection.
//
// Goroutines: the reader is the goroutine that called Serve; it decodes
// frames and handles quick requests inline. Slow requests (sleep,
// progress, large, sample, elicit, roots, and every request when Delay is
// set) each get a handler goroutine. One writer goroutine writes all
// output. One watcher goroutine closes the connection when Serve's ctx ends
// or a write fails, which unblocks the reader.
type session struct {
	srv  *Server
	conn transport.Conn
	w    *writer

	ctx    context.Context // handlers' base context; cancelled when the session ends
	cancel context.CancelCauseFunc

	handlers sync.WaitGroup // handler goroutines

	writeFailed     chan struct{} // closed on the first write error
	writeFailedOnce sync.Once

	requests int // requests received; reader only

	initialized atomic.Bool  // initialize answered
	logLevel    atomic.Int32 // minimum level of notifications/message

	outbound mcpserver.Outbound // the server's requests to the client

	mu         sync.Mutex
	version    string
	clientCaps messages.ClientCapabilities
	inflight   map[messages.ID]context.CancelCauseFunc // slow client requests
	subs       map[string]struct{}                     // subscribed resource URIs
}

func newSession(srv *Server, conn transport.Conn) *session {
	s := &session{
		srv:         srv,
		conn:        conn,
		writeFailed: make(chan struct{}),
		inflight:    make(map[messages.ID]context.CancelCauseFunc),
		subs:        make(map[string]struct{}),
	}
	s.logLevel.Store(int32(levelInfo))
	faults := &faultState{every: srv.opts.GarbageEvery, garbage: &srv.stats.garbage}
	s.w = newWriter(conn, faults, s.onWriteError)
	return s
}

func (s *session) onWriteError(err error) {
	s.writeFailedOnce.Do(func() {
		s.srv.opts.Logger.Debug("demoserver: write failed", "err", err)
		s.cancel(err)
		close(s.writeFailed)
	})
}

func (s *session) serve(ctx context.Context) (result error) {
	st := s.srv.stats
	st.sessions.Add(1)
	st.add(&st.active)
	defer func() {
		st.active.Add(-1)
		st.notify()
	}()
	s.ctx, s.cancel = context.WithCancelCause(ctx)

	// Owner: this session. Exits after s.w.close() once the queue is
	// written (or dropped after a write error); waited for below.
	go s.w.run()

	stopWatch := make(chan struct{})
	watchDone := make(chan struct{})
	// Owner: this session. Exits when Serve's ctx ends or a write fails
	// (closing the conn to unblock the reader and writer), or when the
	// session ends on its own (stopWatch); waited for below.
	go func() {
		defer close(watchDone)
		select {
		case <-ctx.Done():
			s.closeConn(ctx)
		case <-s.writeFailed:
			s.closeConn(ctx)
		case <-stopWatch:
		}
	}()

	result = s.readLoop(ctx)

	// Stop the handlers; they send nothing after their context ends.
	s.cancel(errSessionEnded)
	s.handlers.Wait()

	// Flush what is queued, within bounds.
	s.w.close()
	flush := time.NewTimer(shutdownFlushTimeout)
	select {
	case <-s.w.done:
	case <-ctx.Done():
	case <-flush.C:
	}
	flush.Stop()
	s.closeConn(ctx) // unblocks a writer stuck on a peer that does not read
	<-s.w.done
	close(stopWatch)
	<-watchDone

	if result == nil {
		if err := s.w.writeErr(); err != nil && !errors.Is(err, transport.ErrClosed) {
			result = err
		}
	}
	s.srv.opts.Logger.Debug("demoserver: session ended", "err", result)
	return result
}

func (s *session) closeConn(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownFlushTimeout)
	defer cancel()
	_ = s.conn.Close(cctx)
}

// readLoop reads and handles frames until the connection ends or a fault
// stops the session.
func (s *session) readLoop(ctx context.Context) error {
	for {
		frame, err := s.conn.ReadFrame()
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.Is(err, io.EOF), errors.Is(err, transport.ErrClosed):
				select {
				case <-s.writeFailed:
					return context.Cause(s.ctx)
				default:
				}
				return nil
			}
			return err
		}
		if err := s.handleFrame(frame); err != nil {
			return err
		}
	}
}

// countRequest applies the per-request faults. It returns a non-nil error
// when the session must stop without handling the request.
func (s *session) countRequest() error {
	s.requests++
	o := &s.srv.opts
	if o.ExitAfter > 0 && s.requests > o.ExitAfter {
		return ErrExitRequested
	}
	if o.CloseAfter > 0 && s.requests > o.CloseAfter {
		return ErrCloseRequested
	}
	spam(o.Stderr, o.StderrSpam)
	return nil
}

// register records a slow request so that notifications/cancelled can find
// it. It reports false if a request with the same id is already running.
func (s *session) register(id messages.ID, cancel context.CancelCauseFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id]; dup {
		return false
	}
	s.inflight[id] = cancel
	return true
}

func (s *session) unregister(id messages.ID) {
	s.mu.Lock()
	delete(s.inflight, id)
	s.mu.Unlock()
}

// cancelRequest cancels an in-flight request on the client's behalf.
func (s *session) cancelRequest(id messages.ID) bool {
	s.mu.Lock()
	cancel, ok := s.inflight[id]
	s.mu.Unlock()
	if ok {
		cancel(errClientCancelled)
	}
	return ok
}

func (s *session) negotiated() (string, messages.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.clientCaps
}

func (s *session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subs[uri]
	return ok
}
