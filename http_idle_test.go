package mcpengine_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// minimalStreamableServer is a Streamable HTTP server with nothing to say
// outside request answers (it declares only tools, without list changes):
// initialize gets a session id, notifications 202, anything else {}.
func minimalStreamableServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var gets atomic.Int64
	var next atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			gets.Add(1)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			return
		}
		body, _ := io.ReadAll(r.Body)
		m, err := messages.DecodeMessage(body)
		if err != nil || m.Kind != messages.KindRequest {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := `{}`
		if m.Method == messages.MethodInitialize {
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", next.Add(1)))
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"minimal","version":"1"}}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(messages.AppendResult(nil, m.ID, messages.RawMessage(result)))
	}))
	t.Cleanup(ts.Close)
	return ts, &gets
}

// An idle Streamable HTTP session holds no goroutine of its own: no reader
// (answers are read by the goroutine of the request that asked) and no GET
// stream when the server has nothing to listen for.
func TestIdleStreamableHTTPSessionsHoldNoGoroutines(t *testing.T) {
	ts, gets := minimalStreamableServer(t)
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	const n = 200
	// Warm the connection pool so its goroutines are not counted.
	s0, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "warm", Server: mcpengine.ServerConfig{URL: ts.URL}})
	require.NoError(t, err)
	require.NoError(t, s0.Ping(ctx))
	settle()
	before := runtime.NumGoroutine()
	for i := range n {
		s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprintf("idle-%d", i), Server: mcpengine.ServerConfig{URL: ts.URL}})
		require.NoError(t, err)
		require.NoError(t, s.Ping(ctx))
	}
	settle()
	after := runtime.NumGoroutine()
	perSession := float64(after-before) / n
	t.Logf("%d idle Streamable HTTP sessions: %+d goroutines (%.3f per session)", n, after-before, perSession)
	assert.Less(t, perSession, 0.05)
	assert.Zero(t, gets.Load(), "no GET stream for a server with nothing to listen for")
}

// settle lets goroutines that are finishing (request goroutines, idle
// timers) exit before counting.
func settle() {
	deadline := time.Now().Add(2 * time.Second)
	last := runtime.NumGoroutine()
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			return
		}
		last = n
	}
}
