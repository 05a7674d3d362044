package transport

import (
	"context"
	"errors"
	"fmt"
)

// Conn is one live connection to an MCP server.
//
// Concurrency: ReadFrame is called by one goroutine at a time (the
// session's reader or, for a ReadInterrupter, whichever goroutine holds the
// turn to read); WriteFrames by exactly one goroutine at a time (the
// session's writer); Close may be called from any goroutine, any number of
// times, and unblocks a pending ReadFrame and WriteFrames.
type Conn interface {
	// ReadFrame blocks until one complete frame arrives and returns it. A frame
	// is one JSON-RPC message or batch array, without the transport's framing
	// (no trailing newline). The caller owns the returned slice. ReadFrame
	// returns io.EOF when the peer closed its side cleanly, a
	// *FrameTooLargeError for a frame over the configured cap (the connection
	// is unusable afterwards), and ErrClosed after Close.
	ReadFrame() ([]byte, error)

	// WriteFrames writes the frames in order, each as one message, and flushes
	// them to the peer before returning: callers hand over everything they
	// have queued at once so that many frames cost few system calls. The
	// frames must not contain the transport's delimiter (JSON encoders never
	// emit a raw newline). The slices may be reused after it returns.
	//
	// A RequestConn (HTTP) may return before the network saw the frames
	// (see its Send, which the session uses instead: it decodes each frame
	// here, for users of this plain contract).
	WriteFrames(frames ...[]byte) error

	// Close releases the connection. For a subprocess it runs the shutdown
	// sequence (close stdin, wait, SIGTERM, wait, SIGKILL) and reaps it; ctx
	// bounds how long Close waits before killing outright. Close is
	// idempotent; later calls return the first call's result.
	Close(ctx context.Context) error
}

// Dialer opens connections to one configured server. Dial's ctx bounds only
// the establishment of the connection, never the connection's lifetime: a
// subprocess started by Dial lives until Conn.Close, whatever happens to ctx.
type Dialer interface {
	Dial(ctx context.Context) (Conn, error)
	// String describes the target for logs and errors (no secrets).
	String() string
}

// DialerFunc adapts a function to the Dialer interface.
type DialerFunc struct {
	Name string
	Func func(ctx context.Context) (Conn, error)
}

// Dial calls f.Func.
func (f DialerFunc) Dial(ctx context.Context) (Conn, error) { return f.Func(ctx) }

// String returns f.Name.
func (f DialerFunc) String() string { return f.Name }

// ErrClosed is returned by a Conn used after Close.
var ErrClosed = errors.New("mcpengine/transport: connection closed")

// DefaultMaxFrameBytes is the frame size cap used when a transport's
// configuration leaves it zero: large enough for big tool results and
// embedded resources, small enough that a runaway server cannot exhaust memory.
const DefaultMaxFrameBytes = 32 << 20

// FrameTooLargeError reports a received frame longer than the configured cap.
// The bytes read so far are discarded, never buffered whole.
type FrameTooLargeError struct {
	Limit int
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("mcpengine/transport: frame exceeds the %d-byte limit", e.Limit)
}
