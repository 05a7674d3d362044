package mcpengine_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/testkit"
)

// TestNewCostsNoProcessTable: engines share the process's actor system, so
// a New after the first builds no protoactor process table (1,024 maps of
// 32 shards, 2.8 MB, which a system per engine cost every New).
func TestNewCostsNoProcessTable(t *testing.T) {
	newEngine(t, mcpengine.Config{}) // the process's actor system exists
	before := testkit.LiveHeap()
	e := newEngine(t, mcpengine.Config{})
	grew := testkit.LiveHeap() - before
	runtime.KeepAlive(e)
	if grew > 256<<10 {
		t.Fatalf("a second New holds %d B of heap, over 256 KiB", grew)
	}
}

// TestEnginesOfOneProcessKeepTheirSessionsApart: two engines hold a
// session of the same name on the one actor system; closing one engine
// leaves the other's session answering.
func TestEnginesOfOneProcessKeepTheirSessionsApart(t *testing.T) {
	srv := demoserver.New(demoserver.Options{})
	a := mcpengine.New(mcpengine.Config{Backoff: fastBackoff})
	b := newEngine(t, mcpengine.Config{})
	sa := connectMemory(t, a, srv)
	sb := connectMemory(t, b, srv)
	ctx := testCtx(t, 10*time.Second)
	require.NoError(t, sa.Ping(ctx))
	require.NoError(t, sb.Ping(ctx))

	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, a.Close(closeCtx))
	assert.Error(t, sa.Ping(ctx), "a closed engine's session")
	require.NoError(t, sb.Ping(ctx), "the other engine's session, after the first engine closed")
	_, err := b.Session(t.Name())
	assert.NoError(t, err)
}
