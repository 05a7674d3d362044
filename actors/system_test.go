package actors

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// TestSystemIsOnePerProcessAndWorks: every caller gets the same actor
// system, which spawns, answers and publishes on its event stream.
func TestSystemIsOnePerProcessAndWorks(t *testing.T) {
	sys := System()
	require.Same(t, sys, System())
	got := make(chan any, 1)
	sub := sys.EventStream.Subscribe(func(evt any) {
		if s, ok := evt.(string); ok {
			got <- s
		}
	})
	defer sys.EventStream.Unsubscribe(sub)
	sys.EventStream.Publish("published")
	assert.Equal(t, "published", <-got)

	echo := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(string); ok {
			c.Respond(s)
		}
	}))
	answer, err := sys.Root.RequestFuture(echo, "ping", 10*time.Second).Result()
	require.NoError(t, err)
	assert.Equal(t, "ping", answer)
	require.NoError(t, sys.Root.StopFuture(echo).Wait())
	assert.False(t, sys.IsStopped())
}

// TestRegistryCostsNoProcessTable: an engine's registry is a few
// kilobytes on the shared system, not protoactor's 2.8 MB process table
// of 32,768 maps, which a system per engine cost every New.
func TestRegistryCostsNoProcessTable(t *testing.T) {
	System() // built once per process, before what is measured
	before := testkit.LiveHeap()
	reg := NewRegistry(nil)
	grew := testkit.LiveHeap() - before
	reg.Stop(nil)
	if grew > 256<<10 {
		t.Fatalf("NewRegistry holds %d B of heap, over 256 KiB", grew)
	}
}

// TestRegistriesScopeTheirSessions: two engines' registries on the one
// system each hold a session of the same name; stopping one stops its own
// actors and leaves the other's answering.
func TestRegistriesScopeTheirSessions(t *testing.T) {
	workers := NewWorkerPool(0, 0)
	defer workers.Stop(nil)
	regA, regB := NewRegistry(nil), NewRegistry(nil)
	defer regB.Stop(nil)
	a := spawnDemo(t, regA, workers, "same", nil)
	b := spawnDemo(t, regB, workers, "same", nil)
	assert.NotEqual(t, a.pid.Id, b.pid.Id)
	_, err := regA.Spawn(context.Background(), NewShared(System(), workers, SessionConfig{Name: "same", Dialer: demoDialer(t)}))
	assert.ErrorIs(t, err, mcperr.ErrDuplicateName, "a name is still unique within one registry")
	ping(t, a)
	ping(t, b)

	closeHandle(t, a)
	regA.Stop(nil)
	for _, pid := range []*actor.PID{regA.pid, a.pid} {
		_, alive := System().ProcessRegistry.Get(pid)
		assert.False(t, alive, "%s outlived its registry's Stop", pid.Id)
	}
	ping(t, b)
	closeHandle(t, b)
}

// TestProtoactorLogsGoToTheirEngine: what protoactor logs about a session
// (here, the panic it recovers) reaches the logger of the session's
// engine only.
func TestProtoactorLogsGoToTheirEngine(t *testing.T) {
	var logA, logB syncBuffer
	workers := NewWorkerPool(0, 0)
	defer workers.Stop(nil)
	regA := NewRegistry(slog.New(slog.NewTextHandler(&logA, nil)))
	defer regA.Stop(nil)
	regB := NewRegistry(slog.New(slog.NewTextHandler(&logB, nil)))
	defer regB.Stop(nil)

	hs := &panickyHandshake{}
	h := spawnDemo(t, regA, workers, "panicky", hs)
	waitReady(t, h.Shared())
	closeHandle(t, h)
	assert.Contains(t, logA.String(), "[ACTOR] Recovering")
	assert.Contains(t, logA.String(), "handshake strategy bug")
	assert.Empty(t, logB.String())
}

// demoDialer dials an in-process demo server that lives as long as t.
func demoDialer(t *testing.T) transport.Dialer {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv := demoserver.New(demoserver.Options{})
	return memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) })
}

func spawnDemo(t *testing.T, reg *Registry, workers *WorkerPool, name string, hs handshakePlan) *Handle {
	t.Helper()
	cfg := SessionConfig{Name: name, Dialer: demoDialer(t)}
	if hs != nil {
		cfg.Handshake = hs
	}
	h, err := reg.Spawn(context.Background(), NewShared(System(), workers, cfg))
	require.NoError(t, err)
	return h
}

func ping(t *testing.T, h *Handle) {
	t.Helper()
	c := NewCall(messages.MethodPing, nil)
	h.Post(c)
	select {
	case <-c.Done():
		require.NoError(t, c.Err)
	case <-time.After(10 * time.Second):
		t.Fatal("ping hung")
	}
}

func closeHandle(t *testing.T, h *Handle) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, h.Close(ctx))
}

// syncBuffer is a bytes.Buffer a logger may write from any goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
