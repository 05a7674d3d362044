//go:build !linux

package stdio

import (
	"os"
	"time"
)

// stderrDrain: off Linux there is no shared epoll instance (no pidfd
// watcher), so each child's stderr is drained by a goroutine of its own.
type stderrDrain struct{}

func watchStderr(*os.File, *ring, *lineSink, chan<- struct{}) *stderrDrain { return nil }

func (*stderrDrain) finish(time.Duration, <-chan struct{}) {}
