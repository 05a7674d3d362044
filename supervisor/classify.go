package supervisor

import (
	"context"
	"errors"
)

// Decision is what a session does after its connection failed.
type Decision int

const (
	// Retry: reconnect with backoff, without limit (EOF, transport errors,
	// init timeouts: the server may come back at any time).
	Retry Decision = iota
	// RetryBudgeted: reconnect with backoff, but only a bounded number of
	// consecutive times (a version mismatch may be a server mid-upgrade, but
	// usually will not fix itself).
	RetryBudgeted
	// Permanent: close the session; retrying cannot help.
	Permanent
)

func (d Decision) String() string {
	switch d {
	case Retry:
		return "retry"
	case RetryBudgeted:
		return "retry-budgeted"
	case Permanent:
		return "permanent"
	}
	return "unknown"
}

// Budgeted marks errors that should be retried under the retry budget.
// Errors implement `Budgeted() bool` to opt in (the session's version
// mismatch error does).
type budgeted interface{ Budgeted() bool }

// permanentErr marks errors that must not be retried.
type permanentErr interface{ Permanent() bool }

// Classify maps a connection failure to a Decision. Errors declare their
// own class through Permanent() or Budgeted() methods, so callers never
// sort errors by matching strings; anything unmarked (EOF, I/O errors,
// timeouts) is retried without limit.
func Classify(err error) Decision {
	if err == nil {
		return Retry
	}
	if errors.Is(err, context.Canceled) {
		return Permanent
	}
	var p permanentErr
	if errors.As(err, &p) && p.Permanent() {
		return Permanent
	}
	var b budgeted
	if errors.As(err, &b) && b.Budgeted() {
		return RetryBudgeted
	}
	return Retry
}
