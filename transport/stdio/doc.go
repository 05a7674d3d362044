// Package stdio implements the MCP stdio transport: the engine starts the
// server as a subprocess and exchanges newline-delimited JSON-RPC frames over
// the child's stdin and stdout, while stderr carries free-form logs.
//
// # Cost of a connection
//
// The engine holds thousands of connections, so an idle one is kept cheap:
//
//   - Goroutines: on Linux none owned by an idle Conn, besides the engine's
//     own reader goroutine blocked in ReadFrame. The child's exit (a pidfd)
//     and its stderr pipe are watched by one goroutine shared by every Conn
//     of the process (all in one epoll instance, parked in the runtime
//     poller); it ends with the last Conn's Close. When stderr is readable
//     the watcher starts a goroutine that drains it and exits once the pipe
//     holds nothing. Elsewhere a Conn owns one goroutine, its stderr drain.
//     The child is reaped by Conn.Close. exec never starts copying
//     goroutines because every pipe end is an *os.File.
//   - Memory: no read buffer while idle (stdout and stderr wait for
//     readability in the runtime poller and take a pooled 4 KiB buffer only
//     to read; a buffer grows only while a large frame is being received),
//     and a stderr ring that grows only as the child actually writes to
//     stderr. Write buffers are pooled and held only during WriteFrames.
//   - File descriptors: stdin, stdout, stderr, and the pidfd on Linux.
//
// # Lifetime
//
// Dial starts a fresh child in its own process group, so that grandchildren
// (npx, uvx, shell wrappers) can be signalled together. The Dial context
// bounds only the start; the child lives until Conn.Close, which runs the
// MCP shutdown sequence: close stdin, wait, SIGTERM the group, wait, SIGKILL
// the group, reap. The owner must call Close even after ReadFrame has
// returned io.EOF, otherwise the exited child stays a zombie.
//
// The server is the process Dial started. When it exits (watched on Linux),
// its process group is killed at once, whatever still holds stdout, and
// ReadFrame returns what it wrote and then *ProcessExitedError (which
// matches io.EOF), instead of waiting for an end of file that a child left
// behind may never give.
//
// # Framing
//
// One frame is one line. Empty lines and a trailing carriage return are
// ignored; bytes after the last newline at EOF are reported as
// io.ErrUnexpectedEOF. A received line longer than the configured cap fails
// the connection with *transport.FrameTooLargeError as soon as the cap is
// passed, without buffering the rest of the line (the buffer never exceeds
// the cap plus "\r\n"); the MCP specification considers such a connection
// unusable, and the owner is expected to Close it.
//
// NewStreamConn applies the same framing to arbitrary streams, for servers
// that speak stdio on their own os.Stdin/os.Stdout and for tests.
package stdio
