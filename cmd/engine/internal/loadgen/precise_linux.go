package loadgen

import (
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleep sleeps d in the kernel, with the thread's timer slack set
// to 1 ns so that the wake-up is not rounded (the default slack is 50 µs).
// The goroutine holds its thread for the sleep; the runtime hands the
// processor to another thread meanwhile. false when the kernel refused.
func preciseSleep(d time.Duration) bool {
	// The slack is the calling thread's; a goroutine does not change
	// threads between two system calls it makes back to back.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for {
		err := unix.Nanosleep(&ts, &ts)
		if err == nil {
			return true
		}
		if err != unix.EINTR {
			return false
		}
	}
}
