//go:build !unix

package stdio

// tryWriter is Unix-only: elsewhere every write may block, and callers hand
// frames to a goroutine that can wait.
type tryWriter struct{}

// TryWriteFrames writes nothing where non-blocking pipe writes are not
// available.
func (c *Conn) TryWriteFrames(...[]byte) (bool, error) { return false, nil }
