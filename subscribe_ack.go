package mcpengine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// subscribeByListen subscribes to uri in 2026-07-28: the URI joins the
// listen's filter and the listen is re-opened with it. The server's
// acknowledgement of a request whose filter holds the URI settles it: an
// update sent after Subscribe returned reaches OnNotification. A caller
// that gets an error is not subscribed (the URI leaves the filter).
func (s *Session) subscribeByListen(ctx context.Context, uri string) error {
	s.h.TrackSubscription(uri, true)
	if err := s.awaitSubscribed(ctx, uri); err != nil {
		s.h.TrackSubscription(uri, false)
		return err
	}
	return nil
}

// awaitSubscribed waits for the listen status that settles a
// subscription to uri. A listen that dropped is re-opened by the session
// (after the backoff, or after the reconnect), so that is waited out too.
func (s *Session) awaitSubscribed(ctx context.Context, uri string) error {
	var bound <-chan time.Time // the request timeout, when ctx has no deadline
	if _, ok := ctx.Deadline(); !ok {
		t := time.NewTimer(s.sh.RequestTimeout())
		defer t.Stop()
		bound = t.C
	}
	for {
		st, changed := s.sh.ListenStatus()
		if done, err := subscriptionSettled(st, uri); done {
			return err
		}
		select {
		case <-changed:
		case <-s.sh.Closed():
			return s.sh.CloseErr()
		case <-ctx.Done():
			return ctxEndedError(ctx, messages.MethodSubscriptionsListen)
		case <-bound:
			return &TimeoutError{Method: messages.MethodSubscriptionsListen, After: s.sh.RequestTimeout()}
		}
	}
}

// subscriptionSettled reads a listen status for a subscription to uri:
// done once the server answered a listen request whose filter holds uri.
func subscriptionSettled(st ListenStatus, uri string) (done bool, err error) {
	if !slices.Contains(st.Requested.ResourceSubscriptions, uri) {
		return false, nil // the filter with uri is not sent yet
	}
	switch st.Phase {
	case ListenOpen:
		if st.Acknowledged != nil && slices.Contains(st.Acknowledged.ResourceSubscriptions, uri) {
			return true, nil
		}
		return true, fmt.Errorf("%w: %s", ErrSubscriptionDeclined, uri)
	case ListenFailed:
		return true, st.Err
	case ListenEnded:
		// Ended before its acknowledgement reached us: the server will
		// send nothing more on it.
		return true, fmt.Errorf("%w: %s (the server ended the listen)", ErrSubscriptionDeclined, uri)
	}
	return false, nil
}
