package stdio

// Unreachable marks a command that could not be started as a server the
// engine never reached (transport.Unreachable): a session that was never
// ready closes at once on it instead of retrying a typo.
func (e *StartError) Unreachable() bool { return true }
