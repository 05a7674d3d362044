package actors

import (
	"bytes"
	"errors"
	"regexp"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/supervisor"
)

// DefaultStartAttempts is SessionConfig.StartAttempts' default: enough to
// ride out a server that lost a race at its first start, few enough that
// Connect answers a broken command line within a second or two.
const DefaultStartAttempts = 3

// startGivenUp returns the error that closes a session whose server keeps
// failing before its handshake, once it has done so StartAttempts times
// and the session was never ready; nil while it may try again. A session
// that was ready once is a server that crashed, not one that cannot
// start: it is restarted under the backoff policy without this bound.
func (a *sessionActor) startGivenUp(err error, stderr []byte) *mcperr.StartupError {
	if a.sh.cfg.RetryInitialConnect || a.sh.facts.negotiated.Load() != nil {
		return nil
	}
	if supervisor.Classify(err) != supervisor.Retry {
		// Permanent failures close at once, and budgeted ones (a version
		// mismatch) under their own budget.
		return nil
	}
	limit := a.sh.cfg.StartAttempts
	if limit <= 0 {
		limit = DefaultStartAttempts
	}
	if handshakeTimedOut(err) && !startsProcess(a.sh.cfg.Dialer) {
		// A running server reached over the network that took the
		// handshake and answered nothing for InitTimeout (it accepts TCP
		// and never speaks, or allows no HTTP/2 stream over TLS) would do
		// the same on every try: StartAttempts of them would keep Connect
		// waiting StartAttempts × InitTimeout.
		limit = 1
	}
	tries := a.restartAttempts() + 1
	if tries < limit {
		return nil
	}
	reason := err
	var se *mcperr.ServerStderrError
	if errors.As(err, &se) {
		reason = se.Cause // the stderr is given apart, its telling lines first
	}
	return &mcperr.StartupError{
		Server:   dialerName(a.sh.cfg.Dialer),
		Attempts: tries,
		Reason:   reason.Error(),
		Stderr:   tellingLines(stderr),
		Cause:    err,
	}
}

// handshakeTimedOut reports whether err is the handshake's own timeout
// (InitTimeout), not a caller's deadline.
func handshakeTimedOut(err error) bool {
	var te *mcperr.TimeoutError
	return errors.As(err, &te) && !te.CallerDeadline
}

// startsProcess reports whether each of the dialer's dials starts a fresh
// server process (stdio).
func startsProcess(d any) bool {
	p, ok := d.(interface{ StartsProcess() bool })
	return ok && p.StartsProcess()
}

// errorLine matches a line that says what went wrong in most runtimes'
// words: Node's "Error: Cannot find module", Python's "ModuleNotFoundError:",
// Go's "panic:", a shell's "No such file or directory".
var errorLine = regexp.MustCompile(`(?i)(error|exception|fatal|panic|cannot|can't|could not|not found|no such|denied|refused|invalid|unknown|missing|failed)`)

// stackLine matches the frames that follow an error in a trace: indented
// "at ..." (Node, Java), "File ..." (Python), or a Go goroutine header.
var stackLine = regexp.MustCompile(`^\s+(at |File |\.\.\.)|^goroutine \d+`)

const tellingBytes = 512

// tellingLines picks from a server's stderr the lines a person needs: the
// first line that reads like an error, and the one after it unless that is
// a stack frame; when no line reads like one, the first two lines. A
// runtime's own preamble (Node's "node:internal/...:1228", "throw err;",
// "^") and the stack's tail are left out, which the last lines of stderr
// would show instead.
func tellingLines(stderr []byte) string {
	var lines [][]byte
	for line := range bytes.SplitSeq(stderr, []byte("\n")) {
		if line = bytes.TrimRight(line, "\r\t "); len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	pick := lines
	for i, line := range lines {
		if errorLine.Match(line) && !stackLine.Match(line) {
			pick = lines[i:]
			break
		}
	}
	var out []byte
	for i, line := range pick {
		if i == 2 || (i == 1 && stackLine.Match(line)) {
			break
		}
		if len(out) > 0 {
			out = append(out, " | "...)
		}
		out = append(out, bytes.TrimSpace(line)...)
	}
	if len(out) > tellingBytes {
		out = append(out[:tellingBytes], "..."...)
	}
	return string(out)
}
