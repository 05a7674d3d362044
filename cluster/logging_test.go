package cluster

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the handler's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimRight(s.b.String(), "\n"), "\n")
}

// A dead member's health check fails every second for as long as the
// others run, and a departed coordinator's endpoint fails in bursts: the
// log gets one line when the peer goes and one when it is back.
func TestLibraryLogSaysOnceWhenAPeerGoesAndOnceWhenItComesBack(t *testing.T) {
	var out syncBuffer
	now := time.Unix(1_000_000, 0)
	var clock sync.Mutex
	tick := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	h := newPeerNoise(quieter{slog.NewTextHandler(&out, nil), slog.LevelWarn}, slog.NewTextHandler(&out, nil),
		func() time.Time { clock.Lock(); defer clock.Unlock(); return now })
	lib := slog.New(h).With("lib", "protoactor")

	refused := errors.New("dial tcp 127.0.0.1:7101: connect: connection refused")
	for range 60 { // a minute of health polls of a dead member
		lib.Error("Bad connection to the node health status", slog.Any("error", refused), slog.String("autoManMemberUrl", "http://127.0.0.1:7101/_health"))
		lib.Info("Updated ClusterTopology") // protoactor's own chatter: filtered
		tick(time.Second)
	}
	for i := range 5 { // a coordinator that left
		lib.Error("EndpointWriter failed to connect", slog.String("address", "127.0.0.1:9000"), slog.Any("error", refused), slog.Int("retry", i))
	}
	lib.Warn("something else protoactor says") // passed on as it is
	// The member answers again: its health polls stop failing, and the
	// endpoint reconnects.
	tick(peerQuietFor)
	lib.Info("Updated ClusterTopology")
	lib.Info("EndpointWriter connected", slog.String("address", "127.0.0.1:9000"))

	lines := out.lines()
	require.Len(t, lines, 5, "%s", strings.Join(lines, "\n"))
	assert.Contains(t, lines[0], "cluster: peer unreachable")
	assert.Contains(t, lines[0], "peer=127.0.0.1:7101 check=health")
	assert.Contains(t, lines[0], "connection refused")
	assert.Contains(t, lines[1], "peer=127.0.0.1:9000 check=remote")
	assert.Contains(t, lines[2], "something else protoactor says")
	assert.Contains(t, lines[3], "cluster: peer reachable again")
	assert.Contains(t, lines[3], "peer=127.0.0.1:7101 check=health")
	assert.Contains(t, lines[4], "cluster: peer reachable again")
	assert.Contains(t, lines[4], "peer=127.0.0.1:9000 check=remote")
	for _, l := range lines {
		assert.Contains(t, l, "lib=protoactor")
	}
}

// The logger a member gives protoactor: a minute of a dead member's
// health polls is one line, not sixty.
func TestLibraryLoggerLogsADeadPeerOnce(t *testing.T) {
	var out syncBuffer
	lib := libraryLogger(&Config{}, slog.New(slog.NewTextHandler(&out, nil)))
	for range 60 {
		lib.Error("Bad connection to the node health status", slog.Any("error", errors.New("connection refused")), slog.String("autoManMemberUrl", "http://127.0.0.1:7101/_health"))
	}
	lines := out.lines()
	require.Len(t, lines, 1, "%s", strings.Join(lines, "\n"))
	assert.Contains(t, lines[0], "peer=127.0.0.1:7101")
}
