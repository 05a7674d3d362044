package actors

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// phaseCounter counts lifecycle spans started and ended, by name: an
// exporter sees only the ended ones.
type phaseCounter struct {
	mu             sync.Mutex
	started, ended map[string]int
}

func (p *phaseCounter) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	p.mu.Lock()
	p.started[s.Name()]++
	p.mu.Unlock()
}

func (p *phaseCounter) OnEnd(s sdktrace.ReadOnlySpan) {
	p.mu.Lock()
	p.ended[s.Name()]++
	p.mu.Unlock()
}
func (p *phaseCounter) Shutdown(context.Context) error   { return nil }
func (p *phaseCounter) ForceFlush(context.Context) error { return nil }

func (p *phaseCounter) counts(name string) (started, ended int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started[name], p.ended[name]
}

// A server that dies while initialize is in flight is one failure: one
// restart, one backoff span started and ended, whatever path the failure
// takes (the read's EOF fails the connection, which fails the initialize
// request, whose completion used to fail the connection again).
func TestConnectionLostDuringInitializeIsHandledOnce(t *testing.T) {
	const failures = 3
	var dials atomic.Int32
	blocked := make(chan struct{})
	dieOnInitialize := transport.DialerFunc{Name: "dies-on-initialize", Func: func(ctx context.Context) (transport.Conn, error) {
		if dials.Add(1) > failures {
			close(blocked)
			<-ctx.Done() // cancelled by Close
			return nil, ctx.Err()
		}
		client, server := memory.NewPipe()
		// Owner: this test. Exits after reading one frame (initialize).
		go func() {
			_, _ = server.ReadFrame()
			_ = server.Close(context.Background())
		}()
		return client, nil
	}}

	phases := &phaseCounter{started: map[string]int{}, ended: map[string]int{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(phases))
	tel, err := telemetry.New(telemetry.Providers{Tracer: tp}, telemetry.Options{})
	require.NoError(t, err)

	sys := System()
	workers := NewWorkerPool(0, 0)
	reg := NewRegistry(nil)
	defer func() {
		reg.Stop(nil)
		workers.Stop(nil)
	}()
	sh := NewShared(sys, workers, SessionConfig{
		Name:   "dies-on-initialize",
		Dialer: dieOnInitialize,
		Settings: &Settings{
			Backoff:   supervisor.Policy{Initial: time.Millisecond, Max: time.Millisecond, Jitter: -1},
			Telemetry: tel,
			// Every failure here is before the handshake: without this the
			// session would give up after DefaultStartAttempts of them.
			StartAttempts: 1 << 20,
		},
	})
	var attempts []int
	var amu sync.Mutex
	sh.WatchState(func(ch mcpstate.StateChange) {
		if ch.To == mcpstate.StateBackoff {
			amu.Lock()
			attempts = append(attempts, ch.Attempt)
			amu.Unlock()
		}
	})
	h, err := reg.Spawn(context.Background(), sh)
	require.NoError(t, err)

	select {
	case <-blocked: // the session handled every failure and dialed again
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d dials", dials.Load())
	}
	assert.Equal(t, uint64(failures), sh.Stats().Restarts.Load(), "one restart per failure")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, h.Close(ctx))
	started, ended := phases.counts(telemetry.SpanBackoff)
	assert.Equal(t, failures, started, "one backoff span per failure")
	assert.Equal(t, started, ended, "every backoff span ended")
	amu.Lock()
	assert.Equal(t, []int{1, 2, 3}, attempts, "the attempt count grows by one per failure")
	amu.Unlock()
}
