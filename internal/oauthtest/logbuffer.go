package oauthtest

import (
	"bytes"
	"sync"
)

// LogBuffer is a log sink safe for concurrent writers: give it to a
// slog handler at debug level, run a flow, then check String with Leaked.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p (io.Writer).
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
