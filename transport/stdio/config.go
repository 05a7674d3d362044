package stdio

import (
	"log/slog"
	"time"

	"github.com/mcpengine/mcpengine/transport"
)

// Defaults for zero Config fields, and fixed limits of the stderr handling.
const (
	// DefaultShutdownGrace is how long Close waits for the child after
	// closing its stdin, and again after SIGTERM.
	DefaultShutdownGrace = 2 * time.Second

	// DefaultStderrRingBytes is how many trailing bytes of the child's stderr
	// Conn.Stderr keeps.
	DefaultStderrRingBytes = 64 << 10

	// MaxStderrLineBytes is the longest stderr line passed to the Logger and
	// to Config.StderrLine; the rest of a longer line is dropped (the ring
	// still keeps the raw bytes).
	MaxStderrLineBytes = 4 << 10

	// StderrLogLinesPerSecond caps how many stderr lines per connection reach
	// the Logger; the excess is counted and reported in one summary record.
	// Config.StderrLine is not rate limited.
	StderrLogLinesPerSecond = 100
)

// Config describes how to start one MCP server subprocess.
type Config struct {
	// Command is the program to run: a path (relative paths are resolved
	// against Dir), or a bare name looked up in PATH. When Env sets PATH, that
	// PATH is searched, otherwise the engine's own.
	Command string

	// Args are the arguments after the program name. They may hold secrets
	// and are therefore never included in the Dialer's String.
	Args []string

	// Env sets variables in the child's environment. They win over inherited
	// values.
	Env map[string]string

	// InheritEnv passes the engine's whole environment to the child. When
	// false (the default) the child inherits only the variables named by
	// DefaultEnvKeys, so that credentials held by the engine do not leak into
	// third-party servers.
	InheritEnv bool

	// Dir is the child's working directory; empty means the engine's.
	Dir string

	// MaxFrameBytes caps one received frame; zero means
	// transport.DefaultMaxFrameBytes.
	MaxFrameBytes int

	// StderrRingBytes is how many trailing bytes of the child's stderr
	// Conn.Stderr keeps; zero means DefaultStderrRingBytes, negative keeps
	// none. The ring grows only as stderr output arrives.
	StderrRingBytes int

	// Logger receives each stderr line at debug level (truncated to
	// MaxStderrLineBytes, at most StderrLogLinesPerSecond lines a second).
	// Nil disables logging.
	Logger *slog.Logger

	// StderrLine, when set, is called with every non-empty stderr line
	// (without the newline, truncated to MaxStderrLineBytes) from the
	// connection's stderr goroutine. The slice is only valid during the call.
	// It must return quickly: while it runs, stderr is not drained and a
	// chatty child eventually blocks.
	StderrLine func(line []byte)

	// ShutdownGrace bounds each of the two waits in Close (after closing
	// stdin, and after SIGTERM); zero means DefaultShutdownGrace. Close's
	// context deadline shortens it further.
	ShutdownGrace time.Duration
}

func (c Config) maxFrameBytes() int {
	if c.MaxFrameBytes > 0 {
		return c.MaxFrameBytes
	}
	return transport.DefaultMaxFrameBytes
}

func (c Config) stderrRingBytes() int {
	switch {
	case c.StderrRingBytes == 0:
		return DefaultStderrRingBytes
	case c.StderrRingBytes < 0:
		return 0
	}
	return c.StderrRingBytes
}

func (c Config) shutdownGrace() time.Duration {
	if c.ShutdownGrace > 0 {
		return c.ShutdownGrace
	}
	return DefaultShutdownGrace
}
