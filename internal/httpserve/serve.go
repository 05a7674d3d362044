package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// Server runs an http.Server on a listener in the background until Close:
// what the gateway, the demo server and the Prometheus endpoint each need
// to serve on an address of their own.
type Server struct {
	hs   *http.Server
	done chan struct{} // closed when Serve returned
	err  error         // Serve's result, other than ErrServerClosed

	once     sync.Once
	closeErr error
}

// Serve starts serving hs on ln.
func Serve(ln net.Listener, hs *http.Server) *Server {
	s := &Server{hs: hs, done: make(chan struct{})}
	// Owner: s. Exits when Close shuts the http.Server down.
	go func() {
		defer close(s.done)
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	return s
}

// Close stops accepting requests and waits for those in progress until
// ctx ends, then closes the connections still open. It returns once the
// serving goroutine has exited; later calls return the first call's
// result.
func (s *Server) Close(ctx context.Context) error {
	s.once.Do(func() {
		err := s.hs.Shutdown(ctx)
		if err != nil {
			// ctx ended with requests still running: cut them off.
			err = errors.Join(err, s.hs.Close())
		}
		<-s.done
		s.closeErr = errors.Join(err, s.err)
	})
	return s.closeErr
}
