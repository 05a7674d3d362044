//go:build linux

package faultsuite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// demoEra is the era the demo server speaks in the faults that use it:
// the handshake era, unless TestModernEra runs them again in 2026-07-28.
// Faults run one at a time (none is parallel), so a package variable is
// enough.
var demoEra = "legacy"

// demoOptions are the demo server's options for the era under test.
func demoOptions() demoserver.Options {
	if demoEra == "modern" {
		return demoserver.Options{Versions: messages.ModernVersions}
	}
	// Pinned: the demo server's default serves both eras, and the engine
	// would settle on 2026-07-28.
	return demoserver.Options{Versions: messages.LegacyVersions}
}

// TestModernEra runs the faults whose server is the demo server again
// with the server speaking only 2026-07-28, which the engine negotiates
// by itself: the same contracts hold in the stateless era (callers fail
// promptly with the same typed errors, the session comes back, nothing
// leaks). Faults of the handshake itself (initialize refused, expired
// sessions) have no 2026-07-28 form and are not repeated.
func TestModernEra(t *testing.T) {
	for _, fault := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"DiesWithChildrenAlive", TestDiesWithChildrenAlive},
		{"BrokenFrames", TestBrokenFrames},
		{"OversizedFrame", TestOversizedFrame},
		{"FloodsStderr", TestFloodsStderr},
		{"RepeatedKills", TestRepeatedKills},
		{"HTTP5xx", TestHTTP5xx},
		{"CutStreams", TestCutStreams},
		{"HTTPNeverAnswers", TestHTTPNeverAnswers},
		{"HTTPServerGone", TestHTTPServerGone},
	} {
		t.Run(fault.name, func(t *testing.T) {
			demoEra = "modern"
			t.Cleanup(func() { demoEra = "legacy" })
			fault.run(t)
		})
	}
}

// A server of the handshake era that says nothing to the era probe
// (server/discover) until it is initialized, then refuses it: the engine
// falls back to initialize after the probe's short budget (at most a
// second, not the init timeout), and neither the probe's timeout nor its
// late answer shows in Stats as a failure (issue 27, item 5).
func TestSlowLegacyProbe(t *testing.T) {
	f := newFault(t, "stdio", "probe unanswered: initialize after <=1s; Stats.Timeouts and LateResponses 0", mcpengine.Config{})
	start := time.Now()
	s := f.connect("deaf", scripted(modeDeafToProbe, nil))
	t.Logf("ready %v after Connect began", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, mcpengine.EraLegacy, s.Era())
	// The ping's answer comes after the probe's late one (one stream).
	require.NoError(t, s.Ping(f.ctx(requestTimeout)))
	assert.Zero(t, echoAll(f, s, "p", 2, 2, nil))
	st := s.Stats()
	assert.Zero(t, st.Timeouts, "the probe's timeout is no failure")
	assert.Zero(t, st.LateResponses, "the probe's late answer is no failure")
	assert.Zero(t, st.Restarts)
}
