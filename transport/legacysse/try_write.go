package legacysse

import "github.com/mcpengine/mcpengine/transport"

var _ transport.TryWriter = (*conn)(nil)

// TryWriteFrames implements transport.TryWriter: WriteFrames only queues
// POSTs on the scheduler and never waits on the network, so it always
// writes, and the session's caller sends its request itself instead of
// handing it to one of the engine's workers.
func (c *conn) TryWriteFrames(frames ...[]byte) (bool, error) {
	return true, c.WriteFrames(frames...)
}
