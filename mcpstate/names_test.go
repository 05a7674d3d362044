package mcpstate

import "testing"

// TestNames: the names logs, metrics and the CLI print for each state
// and listen phase.
func TestNames(t *testing.T) {
	states := map[State]string{StateConnecting: "connecting", StateInitializing: "initializing", StateReady: "ready",
		StateBackoff: "backoff", StateClosed: "closed", StateClosed + 1: "unknown"}
	for s, want := range states {
		if s.String() != want {
			t.Errorf("State(%d) = %q, want %q", s, s, want)
		}
	}
	phases := map[ListenPhase]string{ListenNone: "none", ListenOpening: "opening", ListenOpen: "open",
		ListenEnded: "ended", ListenDropped: "dropped", ListenFailed: "failed"}
	for p, want := range phases {
		if p.String() != want {
			t.Errorf("ListenPhase(%d) = %q, want %q", p, p, want)
		}
	}
}
