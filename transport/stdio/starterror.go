package stdio

import "fmt"

// StartError reports a command that could not be started (not found, not
// executable, bad working directory). It is retried only under the
// session's restart budget: a binary being installed may appear, but a
// typo never will, and a Connect without a deadline must not wait forever.
type StartError struct {
	Command string
	Err     error
}

func (e *StartError) Error() string { return fmt.Sprintf("stdio: start %q: %v", e.Command, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// Budgeted marks the error for supervisor.Classify.
func (e *StartError) Budgeted() bool { return true }
