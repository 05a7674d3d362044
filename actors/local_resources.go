package actors

import (
	"errors"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// answerError is the error a caller gets for an error answer. A request
// that failed because this process ran out of descriptors or buffer
// memory arrives from the transport as a synthesized
// transport.CodeRequestFailed answer; the caller gets the
// *transport.LocalResourceError it describes (not a server error), and
// Stats.LocalResourceFailures counts it.
func (a *sessionActor) answerError(w *messages.WireError) error {
	if w.Code == transport.CodeRequestFailed && len(w.Data) > 0 {
		var f transport.RequestFailure
		if messages.Unmarshal(w.Data, &f) == nil {
			if le := f.LocalResourceError(); le != nil {
				a.sh.stats.LocalResourceFailures.Add(1)
				return le
			}
		}
	}
	return messages.TypedError(w)
}

// localResourceFailure returns the *transport.LocalResourceError of a
// connection's failure (a dial that found no descriptor), counting it, or
// nil.
func (a *sessionActor) localResourceFailure(err error) *transport.LocalResourceError {
	var le *transport.LocalResourceError
	if errors.As(err, &le) {
		return le // answerError counted it
	}
	errno, ok := transport.LocalResources(err)
	if !ok {
		return nil
	}
	a.sh.stats.LocalResourceFailures.Add(1)
	return &transport.LocalResourceError{Op: err.Error(), Errno: errno}
}
