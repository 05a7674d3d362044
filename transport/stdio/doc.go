// Package stdio implements the MCP stdio transport: the engine starts the
// server as a subprocess and exchanges newline-delimited JSON-RPC frames over
// the child's stdin and stdout, while stderr carries free-form logs.
//
// # Cost of a connection
//
// The engine holds thousands of connections, so an idle one is kept cheap:
//
//   - Goroutines: exactly one owned by the Conn (the stderr drain), plus the
//     engine's own reader goroutine blocked in ReadFrame. Nothing waits on the
//     child while it runs; the child is reaped by Conn.Close. exec never
//     starts copying goroutines because every pipe end is an *os.File.
//   - Memory: a 4 KiB read buffer (grown only while a large frame is being
//     received, and released afterwards), a 4 KiB stderr read buffer, and a
//     stderr ring that grows only as the child actually writes to stderr.
//     Write buffers are pooled and held only during WriteFrames.
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
