package loadgen

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// serverTarget serves every session from srv over memory pipes.
func serverTarget(srv *demoserver.Server) func(int) mcpengine.SessionConfig {
	d := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(context.Background(), c) })
	return func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: d} }
}

// badOutputConn rewrites the echo tool's structuredContent so that it no
// longer matches the outputSchema the server declares ("text" becomes
// "txt"), like a server whose results drifted from its schema.
type badOutputConn struct{ transport.Conn }

func (c badOutputConn) WriteFrames(frames ...[]byte) error {
	out := make([][]byte, len(frames))
	for i, b := range frames {
		out[i] = bytes.ReplaceAll(b, []byte(`"structuredContent":{"text":`), []byte(`"structuredContent":{"txt":`))
	}
	return c.Conn.WriteFrames(out...)
}

// Every failure class from real faults of the demo server: isError
// results, JSON-RPC errors by code, timeouts, results breaking the
// outputSchema, and connections lost.
func TestErrorTaxonomy(t *testing.T) {
	srv := demoserver.New(demoserver.Options{})
	w := &Workload{Requests: []Request{
		{Tool: "echo", Args: `{"text":"ok"}`},
		{Tool: "fail", Args: `{"message":"kaputt"}`},                        // isError
		{Name: "unknown tool", Tool: "no-such-tool"},                        // -32602
		{URI: "demo://nope"},                                                // -32602 in 2026-07-28 (-32002 before)
		{Method: "no/such/method"},                                          // -32601
		{Name: "slow", Tool: "sleep", Args: `{"ms":5000}`},                  // timeout
		{Name: "bad echo", Tool: "echo", Args: `{"text":"will be broken"}`}, // schema
	}}
	broken := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(context.Background(), badOutputConn{c}) })
	res, err := Run(t.Context(), Config{
		Target: func(i int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: broken} },
		// Only "bad echo" is broken in a real server; here every echo is,
		// so the plain echo request checks the OK path on its own below.
		// The timeout is far below the slow request's 5 s and far above
		// what the others take even with the race detector on a loaded
		// 2-core machine (at 50 ms some of them timed out under load).
		Sessions: 2, Concurrency: 4, Count: 350, Timeout: 250 * time.Millisecond,
		Workload: w,
		// The unknown tool is the point: measure the server's refusals.
		NoPreflight: true,
	})
	require.NoError(t, err)
	byName := map[string]MethodResult{}
	for _, m := range res.Methods {
		byName[m.Name] = m
	}
	assert.Equal(t, res.Calls, res.OK+res.Failed)
	assert.Equal(t, res.Failed, res.Errors.Total())

	fail := byName["tools/call fail"]
	assert.Equal(t, fail.Calls, fail.Errors.Tool, "isError is a failure, class tool")
	assert.Contains(t, fail.FirstErrors["tool"], "kaputt")

	unknown := byName["unknown tool"]
	assert.Equal(t, unknown.Calls, unknown.Errors.RPC)
	assert.Equal(t, unknown.Calls, unknown.RPCCodes["-32602"])

	read := byName["resources/read"]
	assert.Equal(t, read.Calls, read.RPCCodes["-32602"], "resource not found: -32602 with its URI in 2026-07-28, the era the demo server answers by default")
	method := byName["no/such/method"]
	assert.Equal(t, method.Calls, method.RPCCodes["-32601"])
	assert.Equal(t, res.Errors.RPC, res.RPCCodes["-32602"]+res.RPCCodes["-32601"])

	slow := byName["slow"]
	assert.Equal(t, slow.Calls, slow.Errors.Timeout)

	bad := byName["bad echo"]
	assert.Equal(t, bad.Calls, bad.Errors.Schema, "structuredContent not matching outputSchema")
	assert.Contains(t, bad.FirstErrors["schema"], "does not match its outputSchema")
	assert.Contains(t, bad.FirstErrors["schema"], "text")

	for _, n := range []string{"tools/call fail", "unknown tool", "resources/read", "no/such/method", "slow", "bad echo"} {
		assert.Positive(t, byName[n].Calls, n)
		assert.Zero(t, byName[n].OK, n)
	}
	assert.Contains(t, res.Warnings, `tool "no-such-tool" is not in the server's tools/list`)

	// The same echo against an honest server passes the check.
	res, err = Run(t.Context(), Config{Target: serverTarget(srv), Count: 20})
	require.NoError(t, err)
	assert.EqualValues(t, 20, res.OK)

	// With the check off, drifted results count as OK.
	res, err = Run(t.Context(), Config{
		Target: func(i int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: broken} },
		Count:  20, NoOutputCheck: true,
	})
	require.NoError(t, err)
	assert.EqualValues(t, 20, res.OK)
}

func TestTransportErrorsAreClassified(t *testing.T) {
	res, err := Run(t.Context(), Config{
		Target:   demoTarget(demoserver.Options{CloseAfter: 20}),
		Sessions: 1, Concurrency: 4, Count: 100,
	})
	require.NoError(t, err)
	assert.Positive(t, res.Errors.Transport, "%+v", res.Errors)
	assert.Positive(t, res.OK)
	assert.Equal(t, res.Calls, res.OK+res.Errors.Transport)
}
