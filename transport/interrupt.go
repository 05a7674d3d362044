package transport

import "errors"

// ReadInterrupter is implemented by pull connections (not RequestConn) whose
// reads may be taken in turns: ReadFrame may be called by different
// goroutines, one at a time, each handing the turn to the next through a
// synchronizing operation, and another goroutine can cut a blocked
// ReadFrame short. The session uses it to let a caller that waits for its
// answer read that answer itself: otherwise a reader goroutine reads it and
// wakes the caller, two thread wake-ups that are most of a call's cost at
// one call in flight.
type ReadInterrupter interface {
	// InterruptRead makes the ReadFrame in progress return
	// ErrReadInterrupted promptly or, if none is in progress, the next one.
	// Interruptions do not queue up: several before a read count as one.
	// Nothing is lost: the next ReadFrame goes on where the interrupted one
	// stopped. Safe from any goroutine; it never blocks.
	InterruptRead()
	// Buffered reports whether received bytes wait in the connection's
	// buffer, so that the next ReadFrame may return without waiting for the
	// peer. Only the goroutine whose turn it is to read may call it.
	Buffered() bool
}

// ErrReadInterrupted is returned by ReadFrame after InterruptRead. It is not
// a failure: the connection stays usable.
var ErrReadInterrupted = errors.New("mcpengine/transport: read interrupted")
