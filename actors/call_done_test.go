package actors

import (
	"sync"
	"testing"
)

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Done is closed by closeDone whether it was asked for before (a channel
// made, then closed) or after (the shared closed channel), and every
// Done of one call returns the same channel until it closes.
func TestCallDoneClosesWhenAskedBeforeOrAfter(t *testing.T) {
	before := NewCall("m", nil)
	ch := before.Done()
	if ch != before.Done() {
		t.Fatal("two Done calls returned different channels")
	}
	if isClosed(ch) {
		t.Fatal("Done is closed before the call finished")
	}
	before.closeDone()
	if !isClosed(ch) || !isClosed(before.Done()) {
		t.Fatal("Done is not closed after the call finished")
	}

	after := NewCall("m", nil)
	after.closeDone()
	after.closeDone() // a second close is a no-op
	if !isClosed(after.Done()) {
		t.Fatal("Done asked after the call finished is not closed")
	}
	if after.done != nil {
		t.Fatal("a channel was made for a call finished before anyone asked")
	}
}

// Done racing closeDone: every waiter wakes, whoever came first.
func TestCallDoneRacingItsCloseWakesEveryWaiter(t *testing.T) {
	for range 200 {
		c := NewCall("m", nil)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() { // Owner: the test. Exits once Done closed.
				defer wg.Done()
				<-c.Done()
			}()
		}
		c.closeDone()
		wg.Wait()
	}
}
