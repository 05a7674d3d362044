package stdio

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpengine/mcpengine/transport"
)

// Conn is a connection to an MCP server subprocess; it implements
// transport.Conn. Besides the frames it exposes the child's pid, the tail of
// its stderr and, after Close, its exit status.
//
// Goroutines: on Linux none of its own while the child is quiet: the
// process's exit (through a pidfd) and its stderr are watched by one
// goroutine shared by every Conn of the process (exitwatch_linux.go),
// which the first Start starts and Close of the last Conn ends; a short
// goroutine drains stderr while it holds something (stderr_linux.go).
// Elsewhere one, the stderr drain, started by Start and ended by Close.
// ReadFrame is meant for the owner's single reader goroutine and WriteFrames
// for one writer goroutine at a time; Close and the accessors may be called
// from anywhere.
type Conn struct {
	framed
	// proc and name are all that is kept of the exec.Cmd: the command's
	// environment and arguments are not needed after Start, and an idle
	// session should not carry them.
	proc   *os.Process
	name   string
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	grace  time.Duration
	tw     *tryWriter // built on the first TryWriteFrames; writer side only
	// marker is the value of the server's MCPENGINE_SERVER variable, by
	// which Close finds its orphans (guard_linux.go); "" off Linux.
	marker string

	ring ring
	// errDrain drains stderr on readiness, through the exit watcher
	// (Linux); nil when a goroutine of its own does (drainStderr).
	errDrain *stderrDrain
	drained  chan struct{} // closed once stderr is drained to its end

	// exit watches the child's exit (nil when not watched); dead is set
	// once it exited, and publishes exitErr.
	exit    *procWatch
	dead    atomic.Bool
	exitErr *ProcessExitedError

	closeOnce sync.Once
	closeErr  error
	state     atomic.Pointer[os.ProcessState]
}

var _ transport.Conn = (*Conn)(nil)

func newConn(cfg Config, cmd *exec.Cmd, p *pipes) *Conn {
	c := &Conn{
		proc:    cmd.Process,
		name:    cfg.Command,
		stdin:   p.stdin,
		stdout:  p.stdout,
		stderr:  p.stderr,
		grace:   cfg.shutdownGrace(),
		drained: make(chan struct{}),
	}
	c.rd = newFrameReader(p.stdout, cfg.maxFrameBytes())
	c.rd.dead = &c.dead
	c.w = p.stdin
	c.ring.size = cfg.stderrRingBytes()
	sink := &lineSink{fn: cfg.StderrLine, logger: cfg.Logger}
	if cfg.Logger != nil {
		sink.attrs = []slog.Attr{slog.String("command", cfg.Command), slog.Int("pid", cmd.Process.Pid)}
	}
	if c.errDrain = watchStderr(p.stderr, &c.ring, sink, c.drained); c.errDrain == nil {
		// Owner: c. Exits when the child's stderr reaches EOF (the whole
		// process group has exited) or, at the latest, when Close sets a
		// read deadline on it after reaping the child; Close waits for it
		// via c.drained.
		go drainStderr(p.stderr, &c.ring, sink, c.drained)
	}
	c.watchExit()
	return c
}

// ReadFrame returns the next frame (see transport.Conn and framed.ReadFrame).
// Once the child has exited (watched on Linux) it returns what the child
// wrote, without waiting for processes it left behind to close stdout, and
// then *ProcessExitedError, wrapping io.EOF or io.ErrUnexpectedEOF.
func (c *Conn) ReadFrame() ([]byte, error) {
	b, err := c.framed.ReadFrame()
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, c.exitedInstead(err)
	}
	return b, err
}

// WriteFrames writes frames (see framed.WriteFrames). A write that meets
// the closed end of stdin because the child exited returns
// *ProcessExitedError (wrapping the EPIPE) once the status can be read, as
// ReadFrame does: "exited with code 7" says why, "broken pipe" does not,
// and the writer may see the death before the reader.
func (c *Conn) WriteFrames(frames ...[]byte) error {
	err := c.framed.WriteFrames(frames...)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		return c.exitedInstead(err)
	}
	return err
}

// exitedInstead is the *ProcessExitedError wrapping err once the child's
// exit status is known (waiting for it as a read at end of file does),
// err otherwise.
func (c *Conn) exitedInstead(err error) error {
	if c.dead.Load() {
		e := *c.exitErr
		e.Err = err
		return &e
	}
	if e := c.exitedAfterEOF(); e != nil {
		e.Err = err
		return e
	}
	return err
}

// Pid returns the child's process id, which is also its process group id.
func (c *Conn) Pid() int { return c.proc.Pid }

// Stderr returns a copy of the last bytes (up to Config.StderrRingBytes) the
// child wrote to stderr; useful to explain a failed start or a crash. After
// Close it holds everything up to the child's exit.
// Once the child has exited, it first waits (briefly) for the drain to
// have read everything the child wrote.
func (c *Conn) Stderr() []byte {
	c.awaitStderrAfterExit()
	return c.ring.bytes()
}

// ProcessState returns the child's exit status once Close has reaped it,
// nil before.
func (c *Conn) ProcessState() *os.ProcessState { return c.state.Load() }

// ExitCode returns the child's exit code once Close has reaped it, and -1
// before that or when a signal ended the child.
func (c *Conn) ExitCode() int {
	if ps := c.state.Load(); ps != nil {
		return ps.ExitCode()
	}
	return -1
}
