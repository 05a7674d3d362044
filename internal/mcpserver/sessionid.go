package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
)

// NewSessionID returns 128 random bits in hex: visible ASCII, as the
// specification asks of Mcp-Session-Id, and unguessable, since the id is
// all a request needs to act within the session.
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
