package benchmarks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// onToolsChanged asks s for notifications and returns a channel that
// receives one value per notifications/tools/list_changed (dropped while
// one is waiting), and the function that stops asking.
func onToolsChanged(s *mcpengine.Session) (<-chan struct{}, func()) {
	changed := make(chan struct{}, 1)
	stop := s.OnNotification(func(n mcpengine.Notification) {
		if n.Method == messages.NotificationToolsListChanged {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	return changed, stop
}

// waitListenOpen waits until the 2026-07-28 session s has its listen open
// (a server tells only the listens opened before a change) and returns
// the filter the server acknowledged.
func waitListenOpen(ctx context.Context, t *testing.T, s *mcpengine.Session) *messages.SubscriptionFilter {
	t.Helper()
	for {
		st, next := s.Listen()
		if st.Phase == mcpengine.ListenOpen {
			return st.Acknowledged
		}
		require.NotEqual(t, mcpengine.ListenFailed, st.Phase, "listen failed: %v", st.Err)
		select {
		case <-next:
		case <-ctx.Done():
			t.Fatalf("listen never opened: %+v", st)
		}
	}
}
