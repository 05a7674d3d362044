//go:build !linux

package stdio

// procWatch: off Linux the server's exit is not watched (no pidfd); the
// connection ends at end of file on stdout, as it always did.
type procWatch struct{}

func (c *Conn) watchExit()   {}
func (c *Conn) unwatchExit() {}

// exitedAfterEOF: off Linux the status is not read before Close.
func (c *Conn) exitedAfterEOF() *ProcessExitedError { return nil }

// awaitStderrAfterExit: off Linux the exit is not known before Close.
func (c *Conn) awaitStderrAfterExit() {}
