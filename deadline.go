package mcpengine

import (
	"context"
	"errors"
)

// ctxEndedError is what a caller gets when its ctx ended before the
// answer: for a deadline the same *TimeoutError the actor's sweep gives
// when it sees that deadline first (so the error does not depend on which
// clock fired first), for a cancel ctx.Err() itself.
func ctxEndedError(ctx context.Context, method string) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return &TimeoutError{Method: method, CallerDeadline: true}
	}
	return err
}
