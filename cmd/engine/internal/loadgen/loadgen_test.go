package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// demoTarget serves every session from one in-process demo server over
// memory pipes.
func demoTarget(opts demoserver.Options) func(int) mcpengine.SessionConfig {
	srv := demoserver.New(opts)
	d := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(context.Background(), c) })
	return func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: d} }
}

func requireMonotonic(t *testing.T, l Latency) {
	t.Helper()
	seq := []time.Duration{l.Min, l.P50, l.P90, l.P95, l.P99, l.P999, l.Max}
	for i := 1; i < len(seq); i++ {
		require.LessOrEqual(t, seq[i-1], seq[i], "percentiles not monotonic: %+v", l)
	}
	require.Positive(t, l.Max)
	require.LessOrEqual(t, l.Min, l.Mean)
	require.LessOrEqual(t, l.Mean, l.Max)
}

func TestRunCountAddsUp(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target: demoTarget(demoserver.Options{}), Label: "demo",
		Sessions: 2, Concurrency: 4, Count: 200,
	})
	require.NoError(t, err)
	assert.Equal(t, "demo", res.Target)
	assert.Equal(t, messages.MethodToolsCall, res.Method)
	assert.Equal(t, "echo", res.Tool)
	assert.Equal(t, 2, res.Sessions)
	assert.Equal(t, 4, res.Concurrency)
	assert.EqualValues(t, 200, res.Calls)
	assert.EqualValues(t, 200, res.OK)
	assert.Zero(t, res.Failed)
	assert.Equal(t, ErrorCounts{}, res.Errors)
	assert.Nil(t, res.FirstErrors)
	assert.EqualValues(t, 200, res.LatencyHist.TotalCount())
	assert.False(t, res.Interrupted)
	assert.Positive(t, res.CallsPerSecond)
	requireMonotonic(t, res.Latency)
	assert.Positive(t, res.Connect.Total)
	assert.LessOrEqual(t, res.Connect.Min, res.Connect.Mean)
	assert.LessOrEqual(t, res.Connect.Mean, res.Connect.Max)
	assert.LessOrEqual(t, res.Connect.Max, res.Connect.Total)
}

func TestRunIsErrorIsFailure(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 1, Concurrency: 3, Count: 50,
		Tool: "fail", Args: messages.RawMessage(`{"message":"boom"}`),
	})
	require.NoError(t, err)
	assert.EqualValues(t, 50, res.Calls)
	assert.Zero(t, res.OK, "an isError result must never count as a success")
	assert.EqualValues(t, 50, res.Failed)
	assert.EqualValues(t, 50, res.Errors.Tool)
	assert.Equal(t, "tool result has isError: true: boom", res.FirstErrors["tool"])
	assert.EqualValues(t, 50, res.LatencyHist.TotalCount(), "failures are timed too")
}

func TestRunRPCErrors(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 2, Concurrency: 2, Count: 40, Tool: "no-such-tool", NoPreflight: true,
	})
	require.NoError(t, err)
	assert.EqualValues(t, 40, res.Calls)
	assert.EqualValues(t, 40, res.Errors.RPC)
	assert.Zero(t, res.OK)
	assert.Contains(t, res.FirstErrors["rpc"], "unknown tool")
}

func TestRunDurationPing(t *testing.T) {
	const d = 150 * time.Millisecond
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 2, Concurrency: 2, Duration: d, Method: messages.MethodPing,
	})
	require.NoError(t, err)
	assert.Equal(t, "ping", res.Method)
	assert.Empty(t, res.Tool)
	assert.Positive(t, res.Calls)
	assert.Equal(t, res.Calls, res.OK)
	assert.Equal(t, res.Calls, res.LatencyHist.TotalCount())
	assert.GreaterOrEqual(t, res.Duration, d)
	requireMonotonic(t, res.Latency)
}

func TestRunCountAndDurationWhicheverFirst(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{}),
		Sessions: 1, Concurrency: 2, Count: 10, Duration: time.Minute,
	})
	require.NoError(t, err)
	assert.EqualValues(t, 10, res.Calls)
	assert.Less(t, res.Duration, time.Minute)
}

func TestRunTimeouts(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{Delay: 10 * time.Second}),
		Sessions: 1, Concurrency: 4, Count: 8, Timeout: 20 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.EqualValues(t, 8, res.Calls)
	assert.EqualValues(t, 8, res.Errors.Timeout)
	assert.GreaterOrEqual(t, res.Latency.Min, 20*time.Millisecond)
	assert.Contains(t, res.FirstErrors["timeout"], "timed out")
}

func TestRunTransportErrorsStillAddUp(t *testing.T) {
	// Every connection is closed by the server after 20 requests; the
	// engine reconnects and the calls in flight fail as connection lost.
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{CloseAfter: 20}),
		Sessions: 1, Concurrency: 4, Count: 100,
	})
	require.NoError(t, err)
	assert.EqualValues(t, 100, res.Calls)
	assert.Equal(t, res.Calls, res.OK+res.Failed)
	assert.Equal(t, res.Failed, res.Errors.Total())
	assert.Positive(t, res.Errors.Transport, "%+v", res.Errors)
	assert.Positive(t, res.OK)
	assert.EqualValues(t, 100, res.LatencyHist.TotalCount())
}

// countingConn calls after once the server has read n frames.
type countingConn struct {
	transport.Conn
	n     atomic.Int64
	at    int64
	after func()
}

func (c *countingConn) ReadFrame() ([]byte, error) {
	b, err := c.Conn.ReadFrame()
	if err == nil && c.n.Add(1) == c.at {
		c.after()
	}
	return b, err
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := demoserver.New(demoserver.Options{})
	d := memory.NewDialer("demo", func(c transport.Conn) {
		// Stop the run once the session is up and calls flow (frame 20:
		// initialize, initialized, then calls).
		_ = srv.Serve(context.Background(), &countingConn{Conn: c, at: 20, after: cancel})
	})
	res, err := Run(ctx, Config{
		Target:   func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: d} },
		Sessions: 1, Concurrency: 2, Duration: time.Minute,
	})
	require.NoError(t, err)
	assert.True(t, res.Interrupted)
	assert.Positive(t, res.Calls)
	assert.Equal(t, res.Calls, res.OK, "calls cut short by the caller are not failures")
	assert.Less(t, res.Duration, time.Minute)
}

func TestRunConnectFailureReportsLastError(t *testing.T) {
	d := transport.DialerFunc{Name: "broken", Func: func(context.Context) (transport.Conn, error) {
		return nil, errors.New("no route to nowhere")
	}}
	start := time.Now()
	_, err := Run(t.Context(), Config{
		Target: func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: d} },
		// Far longer than the tries take (Config.StartAttempts at the
		// default backoff: well under a second), so that what ends the
		// connect is the engine giving up, not this deadline.
		Sessions: 3, Count: 1, ConnectTimeout: time.Minute,
	})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 30*time.Second)
	var ce *ConnectError
	require.ErrorAs(t, err, &ce)
	assert.False(t, ce.Fatal)
	assert.Contains(t, err.Error(), "could not connect to broken")
	assert.Contains(t, err.Error(), "no route to nowhere")
	// A server that never got to its handshake fails the connect after
	// a few tries (Config.StartAttempts), not at the deadline.
	assert.ErrorIs(t, err, mcpengine.ErrUnreachable)
}

func TestConnectGivesUpAtOnceWhenServerCannotStart(t *testing.T) {
	eng := mcpengine.New(mcpengine.Config{})
	defer func() { require.NoError(t, eng.Close(context.Background())) }()
	start := time.Now()
	_, err := Connect(t.Context(), eng, mcpengine.SessionConfig{
		Name:   "missing",
		Server: mcpengine.ServerConfig{Command: "/nonexistent/mcp-server-that-is-not-there"},
	}, time.Minute)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	var ce *ConnectError
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.Fatal)
	assert.Contains(t, err.Error(), "cannot start server /nonexistent/mcp-server-that-is-not-there")
	assert.Empty(t, eng.Sessions(), "the failed session is closed")
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Class
	}{
		{nil, OK},
		{&mcpengine.RPCError{Code: -32602, Message: "bad"}, RPCError},
		{fmt.Errorf("wrapped: %w", &mcpengine.RPCError{Code: -32601}), RPCError},
		{&mcpengine.TimeoutError{Method: "ping", After: time.Second}, Timeout},
		{context.DeadlineExceeded, Timeout},
		{&mcpengine.ConnectionLostError{Cause: errors.New("EOF")}, Transport},
		{&mcpengine.ClosedError{}, Transport},
		{mcpengine.ErrNotReady, Transport},
		{mcpengine.ErrTooManyInFlight, Other},
		{mcpengine.ErrQueueFull, Other},
		{errors.New("something else"), Other},
	} {
		assert.Equal(t, tc.want, Classify(tc.err), "%v", tc.err)
	}
}

func TestStartFailure(t *testing.T) {
	assert.True(t, StartFailure(&exec.Error{Name: "x", Err: exec.ErrNotFound}))
	assert.True(t, StartFailure(fmt.Errorf("stdio: start: %w", &exec.Error{Name: "x", Err: exec.ErrNotFound})))
	assert.False(t, StartFailure(nil))
	assert.False(t, StartFailure(errors.New("EOF")))
}

func TestSummarizeMonotonic(t *testing.T) {
	h := NewHistogram()
	for i := int64(1); i <= 100000; i += 7 {
		require.NoError(t, h.RecordValue(i*i%HistMax+1))
	}
	requireMonotonic(t, Summarize(h))
	assert.Equal(t, Latency{}, Summarize(NewHistogram()))
}

func TestResultJSONIsStable(t *testing.T) {
	r := Result{
		Schema: SchemaVersion, Target: "demo", Model: "closed", Method: "tools/call", Tool: "echo", Sessions: 2, Concurrency: 3,
		Calls: 10, OK: 9, Failed: 1, Errors: ErrorCounts{Tool: 1},
		Seconds: 1.5, CallsPerSecond: 6.67,
		Latency: Latency{Min: time.Microsecond, P50: time.Millisecond, Max: time.Second, Count: 10},
		Connect: ConnectStats{Total: 3 * time.Millisecond, Count: 2},
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"schema", "target", "model", "method", "tool", "sessions", "concurrency", "calls", "ok", "failed",
		"error_rate", "errors", "duration_s", "calls_per_s", "latency_us", "service_us", "connect_us", "handshake_us",
		"workload", "warmup", "started", "percentiles", "histogram", "hdr", "methods", "per_session", "timeline", "client"} {
		assert.Contains(t, m, k)
	}
	assert.Equal(t, map[string]any{"rpc": 0.0, "tool": 1.0, "schema": 0.0, "timeout": 0.0, "transport": 0.0, "other": 0.0, "check": 0.0}, m["errors"])
	lat := m["latency_us"].(map[string]any)
	assert.EqualValues(t, 1000, lat["p50"])
	assert.EqualValues(t, 1000000, lat["max"])
	assert.EqualValues(t, 10, lat["count"])
	for _, k := range []string{"min", "mean", "stddev", "p50", "p90", "p95", "p99", "p99_9", "max", "count"} {
		assert.Contains(t, lat, k)
	}
	conn := m["connect_us"].(map[string]any)
	for _, k := range []string{"total", "count", "failed", "min", "mean", "p50", "p99", "max"} {
		assert.Contains(t, conn, k)
	}

	var back Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r.Latency, back.Latency)
	assert.Equal(t, r.Connect, back.Connect)
	assert.Equal(t, r.Errors, back.Errors)
}

func TestConfigValidation(t *testing.T) {
	target := demoTarget(demoserver.Options{})
	_, err := Run(t.Context(), Config{Count: 1})
	require.ErrorContains(t, err, "no Target")
	_, err = Run(t.Context(), Config{Target: target})
	require.ErrorContains(t, err, "Duration or a Count")
	_, err = Run(t.Context(), Config{Target: target, Count: 1, Args: messages.RawMessage(`{nope`)})
	require.ErrorContains(t, err, "not valid JSON")
	_, err = Run(t.Context(), Config{Target: target, Count: 1, Method: "ping", Tool: "echo"})
	require.ErrorContains(t, err, "Tool")
}
