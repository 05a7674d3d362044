package actors

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// diesAfterHandshake is a server that completes initialize and dies at
// once, for `connections` dials; later dials wait for Close.
func diesAfterHandshake(connections int32, dials *atomic.Int32, blocked chan struct{}) transport.Dialer {
	return transport.DialerFunc{Name: "crash-loop", Func: func(ctx context.Context) (transport.Conn, error) {
		if dials.Add(1) > connections {
			close(blocked)
			<-ctx.Done() // cancelled by Close
			return nil, ctx.Err()
		}
		client, server := memory.NewPipe()
		// Owner: this test. Exits after the handshake.
		go func() {
			defer server.Close(context.Background())
			frame, err := server.ReadFrame()
			if err != nil {
				return
			}
			msgs, _ := messages.DecodeFrame(frame)
			if len(msgs) != 1 {
				return
			}
			res := `{"protocolVersion":"` + messages.LatestVersion + `","capabilities":{},"serverInfo":{"name":"crash","version":"1"}}`
			_ = server.WriteFrames(messages.AppendResult(nil, msgs[0].ID, messages.RawMessage(res)))
			_, _ = server.ReadFrame() // notifications/initialized
		}()
		return client, nil
	}}
}

// runCrashLoop lets a session meet `connections` servers that die right
// after their handshake and returns the Attempt of each backoff.
func runCrashLoop(t *testing.T, policy supervisor.Policy, connections int32) (attempts []int, sh *Shared) {
	t.Helper()
	var dials atomic.Int32
	blocked := make(chan struct{})
	sys := System()
	workers := NewWorkerPool(0, 0)
	reg := NewRegistry(nil)
	defer func() {
		reg.Stop(nil)
		workers.Stop(nil)
	}()
	sh = NewShared(sys, workers, SessionConfig{Name: "crash-loop", Dialer: diesAfterHandshake(connections, &dials, blocked), Settings: &Settings{Backoff: policy}})
	var mu sync.Mutex
	readies := 0
	sh.WatchState(func(ch mcpstate.StateChange) {
		mu.Lock()
		defer mu.Unlock()
		switch ch.To {
		case mcpstate.StateBackoff:
			attempts = append(attempts, ch.Attempt)
		case mcpstate.StateReady:
			readies++
		}
	})
	h, err := reg.Spawn(context.Background(), sh)
	require.NoError(t, err)
	select {
	case <-blocked:
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d dials", dials.Load())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, h.Close(ctx)) // waits for the state callbacks
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, int(connections), readies, "every connection got through its handshake")
	return attempts, sh
}

// A server that dies right after its handshake is in a crash loop: each
// restart counts as one more in a row and waits longer (here 1, 2, 4, 8,
// 16 ms), instead of starting over at the first delay because the
// handshake succeeded.
func TestACrashLoopRightAfterInitializeBacksOffFurtherEachTime(t *testing.T) {
	policy := supervisor.Policy{Initial: time.Millisecond, Max: time.Minute, Multiplier: 2, Jitter: -1, ResetAfter: time.Hour}
	attempts, sh := runCrashLoop(t, policy, 5)
	assert.Equal(t, []int{1, 2, 3, 4, 5}, attempts)
	assert.Equal(t, uint64(5), sh.Stats().Restarts.Load())
}

// A connection that stayed ready for ResetAfter starts the count over.
func TestAConnectionThatStayedReadyStartsTheBackoffOver(t *testing.T) {
	policy := supervisor.Policy{Initial: time.Millisecond, Max: time.Minute, Jitter: -1, ResetAfter: time.Nanosecond}
	attempts, _ := runCrashLoop(t, policy, 3)
	assert.Equal(t, []int{1, 1, 1}, attempts)
}
