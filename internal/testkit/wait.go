package testkit

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Ctx is a context that ends after d or when the test ends, whichever
// comes first.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Eventually waits until cond holds, failing the test with msg (formatted
// with args) if it still does not after within. It is for state the code
// under test announces by no event; cond is checked at once, then at
// intervals growing from 1 ms to 20 ms, so a condition met early is seen
// early and a long wait does not spin.
func Eventually(t testing.TB, within time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			if len(args) > 0 {
				msg = fmt.Sprintf(msg, args...)
			}
			t.Fatalf("condition not met within %v: %s", within, msg)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}
