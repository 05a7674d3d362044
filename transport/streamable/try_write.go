package streamable

import "github.com/mcpengine/mcpengine/transport"

var _ transport.TryWriter = (*conn)(nil)

// TryWriteFrames implements transport.TryWriter: WriteFrames never waits
// on the network (every frame goes out on a goroutine of the scheduler),
// so it always writes. The session's caller then hands its request to the
// connection itself, without waking one of the engine's workers to do it:
// one goroutine hand-off less per call.
func (c *conn) TryWriteFrames(frames ...[]byte) (bool, error) {
	return true, c.WriteFrames(frames...)
}
