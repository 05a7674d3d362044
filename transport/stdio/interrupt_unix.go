//go:build unix

package stdio

import (
	"time"

	"github.com/mcpengine/mcpengine/transport"
)

var _ transport.ReadInterrupter = (*Conn)(nil)

// pastDeadline is any moment in the past: a read deadline there wakes the
// poller's waiter at once and fails every read until it is lifted.
var pastDeadline = time.Unix(1, 0)

// InterruptRead implements transport.ReadInterrupter: a read deadline in
// the past wakes a ReadFrame waiting in the runtime poller (the child's
// stdout is a non-blocking pipe), which lifts it again and returns
// transport.ErrReadInterrupted. A deadline set while nobody reads stays
// until the next ReadFrame sees it, so an interruption is never lost.
func (c *Conn) InterruptRead() { _ = c.stdout.SetReadDeadline(pastDeadline) }

// Buffered implements transport.ReadInterrupter.
func (c *Conn) Buffered() bool { return c.rd.buffered() }
