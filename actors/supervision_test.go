package actors

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/mcpstate"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// panickyHandshake panics inside Receive on its first accept.
type panickyHandshake struct {
	legacyHandshake
	accepts atomic.Int32
}

func (h *panickyHandshake) newRun() handshaker { return h }

func (h *panickyHandshake) accept(result messages.RawMessage) (Negotiated, error) {
	if h.accepts.Add(1) == 1 {
		panic("handshake strategy bug")
	}
	return h.legacyHandshake.accept(result)
}

func startSession(t *testing.T, cfg SessionConfig) (*Handle, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := demoserver.New(demoserver.Options{})
	if cfg.Dialer == nil {
		cfg.Dialer = memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) })
	}
	settings := Settings{}
	if cfg.Settings != nil {
		settings = *cfg.Settings
	}
	settings.Backoff = supervisor.Policy{Initial: time.Millisecond, Max: 10 * time.Millisecond}
	cfg.Settings = &settings
	sys := System()
	workers := NewWorkerPool(0, 0)
	reg := NewRegistry(nil)
	h, err := reg.Spawn(ctx, NewShared(sys, workers, cfg))
	require.NoError(t, err)
	return h, func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		require.NoError(t, h.Close(cctx))
		cancel()
		reg.Stop(nil)
		workers.Stop(nil)
	}
}

func waitReady(t *testing.T, sh *Shared) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for sh.State() != mcpstate.StateReady {
		select {
		case <-sh.StateChanged():
		case <-deadline:
			t.Fatalf("not ready: %v (%v)", sh.State(), sh.LastError())
		}
	}
}

func TestPanicInReceiveRestartsTheActorAndTheSessionRecovers(t *testing.T) {
	hs := &panickyHandshake{}
	h, stop := startSession(t, SessionConfig{Name: "panicky", Handshake: hs})
	defer stop()
	waitReady(t, h.Shared())
	assert.Equal(t, int32(2), hs.accepts.Load(), "second instance completed the handshake")
	assert.GreaterOrEqual(t, h.Shared().Stats().Restarts.Load(), uint64(1))

	c := NewCall(messages.MethodPing, nil)
	h.Post(c)
	select {
	case <-c.Done():
		require.NoError(t, c.Err)
	case <-time.After(10 * time.Second):
		t.Fatal("ping after restart hung")
	}
}

func TestInitTimeoutGoesToBackoffAndRetries(t *testing.T) {
	var dials atomic.Int32
	silent := transport.DialerFunc{Name: "silent", Func: func(context.Context) (transport.Conn, error) {
		dials.Add(1)
		client, server := memory.NewPipe()
		_ = server // never answers; closed when the client side closes
		return &closeBoth{Conn: client, other: server}, nil
	}}
	// RetryInitialConnect: without it a never-ready session reached over
	// a connection (not a process it starts) gives up after its first
	// init timeout (startup.go; TestNeverReadySilentServerGivesUpAfterOneTimeout).
	h, stop := startSession(t, SessionConfig{Name: "silent", Dialer: silent, Settings: &Settings{InitTimeout: 20 * time.Millisecond, RetryInitialConnect: true}})
	defer stop()
	deadline := time.After(10 * time.Second)
	for dials.Load() < 3 {
		select {
		case <-h.Shared().StateChanged():
		case <-deadline:
			t.Fatal("no retries after init timeouts")
		}
	}
	var te *mcperr.TimeoutError
	assert.ErrorAs(t, h.Shared().LastError(), &te)
}

type closeBoth struct {
	transport.Conn
	other transport.Conn
}

func (c *closeBoth) Close(ctx context.Context) error {
	_ = c.other.Close(ctx)
	return c.Conn.Close(ctx)
}

func TestNeverReadySilentServerGivesUpAfterOneTimeout(t *testing.T) {
	var dials atomic.Int32
	silent := transport.DialerFunc{Name: "silent", Func: func(context.Context) (transport.Conn, error) {
		dials.Add(1)
		client, server := memory.NewPipe()
		return &closeBoth{Conn: client, other: server}, nil
	}}
	h, stop := startSession(t, SessionConfig{Name: "silent", Dialer: silent, Settings: &Settings{InitTimeout: 20 * time.Millisecond}})
	defer stop()
	deadline := time.After(10 * time.Second)
	for h.Shared().State() != mcpstate.StateClosed {
		select {
		case <-h.Shared().StateChanged():
		case <-deadline:
			t.Fatalf("still %v after 10s", h.Shared().State())
		}
	}
	var se *mcperr.StartupError
	require.ErrorAs(t, h.Shared().LastError(), &se)
	assert.Equal(t, 1, se.Attempts)
	assert.EqualValues(t, 1, dials.Load())
}
