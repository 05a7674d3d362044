package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpengine/mcpengine"
)

// DefaultConnectTimeout bounds Connect when no timeout is given.
const DefaultConnectTimeout = 10 * time.Second

// ConnectError reports a session that did not become ready.
type ConnectError struct {
	// Target describes the server (its command, or the dialer's name).
	Target string
	// After is how long Connect waited (the timeout, if it expired).
	After time.Duration
	// Fatal is set when the server could not be started at all (command
	// not found, not executable, bad working directory): Connect gave up at
	// once instead of waiting for the engine's retries.
	Fatal bool
	// State is the session's state when Connect gave up.
	State mcpengine.State
	// Last is the last connection error the session saw (nil if none).
	Last error
	// Err is what ended the wait (a deadline, the session closing, …).
	Err error
}

func (e *ConnectError) Error() string {
	var unreachable *mcpengine.ConnectError
	switch {
	case e.Fatal:
		last := e.Last
		if errors.As(last, &unreachable) && unreachable.Cause != nil {
			last = unreachable.Cause // the start error itself, not the engine's wrapping of it
		}
		return fmt.Sprintf("cannot start server %s: %v", e.Target, last)
	case errors.As(e.Err, &unreachable):
		return fmt.Sprintf("cannot reach %s: %s", e.Target, unreachable.Reason)
	case errors.Is(e.Err, context.DeadlineExceeded):
		if e.Last != nil {
			return fmt.Sprintf("could not connect to %s within %v: last error: %v%s", e.Target, e.After, e.Last, eofHint(e.Last))
		}
		why := "the server is still starting"
		if e.State == mcpengine.StateInitializing {
			why = "the server started but did not answer the initialize request"
		}
		return fmt.Sprintf("could not connect to %s within %v: %s", e.Target, e.After, why)
	}
	if e.Last != nil && !errors.Is(e.Err, e.Last) {
		return fmt.Sprintf("could not connect to %s: %v (last connection error: %v%s)", e.Target, e.Err, e.Last, eofHint(e.Last))
	}
	return fmt.Sprintf("could not connect to %s: %v", e.Target, e.Err)
}

func eofHint(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) {
		return " (the server exited or closed its output before the handshake completed)"
	}
	return ""
}

func (e *ConnectError) Unwrap() []error {
	if e.Last != nil {
		return []error{e.Err, e.Last}
	}
	return []error{e.Err}
}

// Describe names a session's target for messages: its command, or its
// dialer's name.
func Describe(sc mcpengine.SessionConfig) string {
	if sc.Dialer != nil {
		return sc.Dialer.String()
	}
	if sc.Server.Command != "" {
		return sc.Server.Command
	}
	return sc.Server.URL
}

// StartFailure reports whether err says the server's program could not be
// started at all, which no retry fixes soon: the command does not exist,
// is not executable, or its working directory is missing.
func StartFailure(err error) bool {
	if err == nil {
		return false
	}
	var ee *exec.Error
	return errors.As(err, &ee) || errors.Is(err, exec.ErrNotFound) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
}

// Phases times one connect: Dial is from opening the session until its
// transport was up (the process started, or the connection made),
// Handshake from then until initialize was answered and the session
// ready. Dial is zero when the transport came up before the session could
// be watched (an in-process pipe); Handshake then holds all of it.
type Phases struct {
	Dial, Handshake time.Duration
}

// Connect opens a session on eng and waits until it is ready, at most
// timeout (DefaultConnectTimeout if zero). Unlike Engine.Connect it gives up
// at once when the server cannot be started, and its error (a
// *ConnectError) carries the session's last connection error. On failure
// the session is closed again.
func Connect(ctx context.Context, eng *mcpengine.Engine, sc mcpengine.SessionConfig, timeout time.Duration) (*mcpengine.Session, error) {
	s, _, err := ConnectTimed(ctx, eng, sc, timeout)
	return s, err
}

// ConnectTimed is Connect that also times the connect's phases. The
// phase boundaries are taken when the session reports its state changes,
// a few microseconds after they happen.
func ConnectTimed(ctx context.Context, eng *mcpengine.Engine, sc mcpengine.SessionConfig, timeout time.Duration) (*mcpengine.Session, Phases, error) {
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	start := time.Now()
	s, err := eng.Open(ctx, sc)
	var unreachable *mcpengine.ConnectError
	if errors.As(err, &unreachable) { // refused by the config (a URL scheme): say it as a connect would
		return nil, Phases{}, &ConnectError{Target: Describe(sc), Err: err}
	}
	if err != nil {
		return nil, Phases{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var (
		mu      sync.Mutex
		fatal   error
		dialed  time.Time // when the session was last seen initializing
		readyAt time.Time
	)
	giveUp := func(err error) {
		if !StartFailure(err) {
			return
		}
		mu.Lock()
		if fatal == nil {
			fatal = err
		}
		mu.Unlock()
		cancel()
	}
	stamp := func(st mcpengine.State, now time.Time) {
		mu.Lock()
		switch {
		case st == mcpengine.StateInitializing && readyAt.IsZero(): // the last attempt before ready
			dialed = now
		case st == mcpengine.StateReady && readyAt.IsZero():
			readyAt = now
		}
		mu.Unlock()
	}
	stop := s.WatchState(func(ch mcpengine.StateChange) {
		stamp(ch.To, ch.At)
		giveUp(ch.Err)
	})
	giveUp(s.LastError()) // a failure before the watch started
	if st := s.State(); st == mcpengine.StateInitializing {
		stamp(st, time.Now()) // dialed before the watch started: as close as we can tell
	}
	err = s.WaitReady(wctx)
	stop()
	if err == nil {
		end := time.Now()
		mu.Lock()
		if readyAt.IsZero() || readyAt.After(end) {
			readyAt = end
		}
		var ph Phases
		if dialed.IsZero() {
			ph.Handshake = readyAt.Sub(start)
		} else {
			ph.Dial, ph.Handshake = dialed.Sub(start), readyAt.Sub(dialed)
		}
		mu.Unlock()
		return s, ph, nil
	}

	mu.Lock()
	ce := &ConnectError{
		Target: Describe(sc), After: time.Since(start), State: s.State(),
		Last: s.LastError(), Err: err,
	}
	if fatal == nil && StartFailure(err) {
		fatal = err // the session closed on it before its state callback ran
	}
	if fatal != nil {
		ce.Fatal, ce.Last = true, fatal
	}
	mu.Unlock()
	var closed *mcpengine.ClosedError
	if errors.As(err, &closed) && closed.Cause != nil {
		ce.Err = closed.Cause
	}
	switch {
	case ctx.Err() != nil: // the caller gave up, not the connect timeout
		ce.Err = ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) && fatal == nil:
		ce.After = timeout
	}

	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ccancel()
	_ = s.Close(cctx)
	return nil, Phases{}, ce
}
