package actors

import (
	"bytes"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/transport"
)

// stderrKeeper is implemented by transports that keep the tail of the
// server's stderr (stdio).
type stderrKeeper interface{ Stderr() []byte }

const (
	stderrTailLines = 5
	stderrTailBytes = 1024
)

// serverStderr is what the transport kept of the server's stderr, nil when
// it keeps none. Best effort: the drain may not have read the very last
// bytes yet when the failure is seen.
func serverStderr(conn transport.Conn) []byte {
	if k, ok := conn.(stderrKeeper); ok {
		return k.Stderr()
	}
	return nil
}

// withServerStderr attaches the server's last stderr lines to err.
func withServerStderr(err error, stderr []byte) error {
	if err == nil || len(stderr) == 0 {
		return err
	}
	tail := lastLines(stderr, stderrTailLines, stderrTailBytes)
	if tail == "" {
		return err
	}
	return &mcperr.ServerStderrError{Cause: err, Stderr: tail}
}

func lastLines(b []byte, n, maxBytes int) string {
	b = bytes.TrimRight(b, "\r\n\t ")
	if len(b) > maxBytes {
		b = b[len(b)-maxBytes:]
	}
	for i, cut := len(b)-1, 0; i >= 0; i-- {
		if b[i] == '\n' {
			cut++
			if cut == n {
				b = b[i+1:]
				break
			}
		}
	}
	return string(bytes.ReplaceAll(bytes.TrimSpace(b), []byte("\n"), []byte(" | ")))
}
