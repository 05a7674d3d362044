// Package supervisor decides when and how a session restarts: the backoff
// delay between attempts (Delay, a pure function with the jitter applied
// before the cap), the retry budget (via github.com/cenkalti/backoff/v4),
// when a connection lived long enough to start both over (the restart
// intensity period, Policy.ResetAfter), and which failures are worth a
// retry at all (Classify).
//
// The delays are not backoff/v4's ExponentialBackOff: it jitters around an
// interval that is capped before the jitter (its MaxInterval "caps the
// RetryInterval and not the randomized interval"), so waits at the cap
// overshoot it by up to the randomization factor, and it draws from the
// global math/rand source, so its schedule cannot be table-tested. Delay
// keeps every wait within Max and takes its random number as an argument.
//
// The session actor owns one Restarter per session and schedules each
// attempt as a message to itself; nothing here sleeps or starts goroutines.
package supervisor
