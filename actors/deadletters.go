package actors

// Messages that reach a session after it stopped (a timer firing, the
// reader of a closed connection, a late flush) are expected and harmless.
// Marking them keeps protoactor from logging them and from starting its
// dead-letter throttle goroutine for each burst.

func (*Call) IgnoreDeadLetterLogging()              {}
func (*Notify) IgnoreDeadLetterLogging()            {}
func (*cancelCall) IgnoreDeadLetterLogging()        {}
func (*frameIn) IgnoreDeadLetterLogging()           {}
func (*brokenAnswers) IgnoreDeadLetterLogging()     {}
func (*connFailed) IgnoreDeadLetterLogging()        {}
func (*dialed) IgnoreDeadLetterLogging()            {}
func (*retryNow) IgnoreDeadLetterLogging()          {}
func (*sweepDue) IgnoreDeadLetterLogging()          {}
func (*serverReplyReady) IgnoreDeadLetterLogging()  {}
func (*setRoots) IgnoreDeadLetterLogging()          {}
func (*trackSubscription) IgnoreDeadLetterLogging() {}
func (*trackLogLevel) IgnoreDeadLetterLogging()     {}
func (*closeSession) IgnoreDeadLetterLogging()      {}
func (*listenRetry) IgnoreDeadLetterLogging()       {}
func (*refreshListen) IgnoreDeadLetterLogging()     {}
