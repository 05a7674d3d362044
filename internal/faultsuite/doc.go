// Package faultsuite holds the fault suite (issue 16, `make faults`):
// misbehaving MCP servers, stdio and HTTP, driven through the public API of
// the root package only, each checked against the engine's contract:
//
//   - no caller waits past its deadline (a deadline ends a call with
//     *TimeoutError, which also matches context.DeadlineExceeded);
//   - each fault gives its typed error (ErrConnectionLost, ErrTimeout,
//     ErrProtocol, ErrVersionMismatch, ErrRequestFailed);
//   - no answer reaches the wrong caller;
//   - the session's state tells the truth within a bound (it leaves ready
//     when its server dies, and comes back);
//   - after Close, goroutines and file descriptors are back to where they
//     were, and every server process (and every process it started) is
//     gone and reaped.
//
// Every fault also reports what it measured (time to error, restarts, the
// leak check) in a table printed at the end of the run. The figures are
// reported, never asserted as speeds: the bounds the tests assert only tell
// "prompt" from "waited for a timeout".
//
// The package has no non-test code beyond this comment; the servers live in
// its test files (the test binary re-executes itself as a scripted stdio
// server, see server_test.go). It runs on Linux only: it counts processes,
// process groups and descriptors in /proc.
//
// make faults runs every fault with FAULTS_FULL=1 (heavier loads, longer
// loops, repeated kills); without it, as in make test, a fast subset runs.
package faultsuite
