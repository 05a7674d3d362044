package mcpserver

import (
	"sync"
	"time"
)

// Lease counts the HTTP requests in progress on one session and ends the
// session through onIdle once none has been in progress for the idle
// timeout. A session of an HTTP transport has no connection whose close
// says the client left: silence is all there is.
//
// The timer is armed by the Release that leaves no request in progress
// (a new session is held by the request that creates it), stopped by
// Hold, and never armed again after End. Its callback runs on the
// timer's goroutine and must not wait for the session's requests.
type Lease struct {
	timeout time.Duration // 0: never idle
	onIdle  func()

	mu     sync.Mutex
	active int
	ended  bool
	timer  *time.Timer
}

// NewLease returns a lease whose session ends through onIdle after
// timeout without a request (never, if timeout <= 0).
func NewLease(timeout time.Duration, onIdle func()) *Lease {
	return &Lease{timeout: timeout, onIdle: onIdle}
}

// Hold counts a request in progress; it reports false once the lease has
// ended (the request then finds no session).
func (l *Lease) Hold() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return false
	}
	l.active++
	if l.timer != nil {
		l.timer.Stop()
	}
	return true
}

// Release ends a request counted by Hold; the last one arms the idle
// timeout.
func (l *Lease) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if l.active > 0 || l.ended || l.timeout <= 0 {
		return
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(l.timeout, l.expire)
	} else {
		l.timer.Reset(l.timeout)
	}
}

// expire runs onIdle if no request came since the timer was armed.
func (l *Lease) expire() {
	l.mu.Lock()
	idle := l.active == 0 && !l.ended
	l.mu.Unlock()
	if idle {
		l.onIdle()
	}
}

// End stops the timer for good; it reports whether this call ended the
// lease (false when it had ended before).
func (l *Lease) End() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return false
	}
	l.ended = true
	if l.timer != nil {
		l.timer.Stop()
	}
	return true
}
