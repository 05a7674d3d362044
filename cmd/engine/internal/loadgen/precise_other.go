//go:build !linux

package loadgen

import "time"

// preciseSleep is not available here: the Go timer does the waiting.
func preciseSleep(time.Duration) bool { return false }
