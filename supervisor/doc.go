// Package supervisor decides when and how a session restarts: the backoff
// delay between attempts (Delay, a pure function with the jitter applied
// before the cap), the retry budget (via github.com/cenkalti/backoff/v4), and
// which failures are worth a retry at all (Classify).
//
// The session actor owns one Restarter per session and schedules each
// attempt as a message to itself; nothing here sleeps or starts goroutines.
package supervisor
