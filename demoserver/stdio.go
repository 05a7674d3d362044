package demoserver

import (
	"context"
	"errors"
	"io"

	"github.com/mcpengine/mcpengine/transport/stdio"
)

// ServeStdio serves one client speaking newline-delimited JSON-RPC on stdin
// and stdout (the stdio transport), as a server subprocess does. It returns
// when stdin reaches EOF (nil), ctx ends, or a fault fires. With the
// CloseAfter fault it closes stdout and then waits for ctx to end before
// returning ErrCloseRequested, so the process stays alive with its stdout
// at EOF; with ExitAfter it returns ErrExitRequested at once and the caller
// (the CLI) is expected to exit the process.
//
// Cancelling ctx closes stdin and stdout; a pending read of a stdin that is
// not a pipe created by os.Pipe may only return at the next input or EOF
// (see stdio.NewStreamConn), so a CLI should exit on its signal rather than
// wait for ServeStdio when stdin might be a terminal.
func ServeStdio(ctx context.Context, opts Options, stdin io.ReadCloser, stdout io.WriteCloser) error {
	conn := stdio.NewStreamConn(stdin, stdout, 0)
	err := New(opts).Serve(ctx, conn)
	if errors.Is(err, ErrCloseRequested) {
		<-ctx.Done()
	}
	return err
}
