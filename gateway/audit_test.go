package gateway_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/internal/testkit"
)

// lockedBuffer is an io.Writer safe for the gateway's concurrent use.
type lockedBuffer struct{ testkit.LockedBuffer }

func (l *lockedBuffer) records(t *testing.T) []gateway.AuditRecord {
	var out []gateway.AuditRecord
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var r gateway.AuditRecord
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		out = append(out, r)
	}
	return out
}

func TestAuditLogsEveryToolCallWithoutArguments(t *testing.T) {
	var log lockedBuffer
	_, _, gw := twoServers(t, func(c *gateway.Config) {
		c.Audit = gateway.Audit{Writer: &log}
		c.Clients = []gateway.Client{{Name: "alice", Token: aliceToken, Policy: gateway.Policy{Tools: gateway.Rules{Deny: []string{"sleep"}}}}}
	})
	s := connect(t, clientEngine(t, mcpengine.Config{}), "alice", gw, aliceToken)
	ctx := testCtx(t, 30*time.Second)

	start := time.Now()
	_, err := s.CallTool(ctx, "a__echo", map[string]any{"text": "secret value"})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "b__fail", map[string]any{"message": "boom"})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "a__sleep", map[string]any{"ms": 1})
	require.Error(t, err)
	_, err = s.CallTool(ctx, "b__no-such-tool", map[string]any{})
	require.Error(t, err)
	_, body, _ := post(t, gw.RouteURL(), aliceToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"server_id":"b"}`)
	require.NotNil(t, member(t, body, "result"))
	_, err = s.ListTools(ctx) // not a tool call: not audited
	require.NoError(t, err)

	recs := log.records(t)
	require.Len(t, recs, 5)
	type line struct{ server, tool, endpoint, outcome string }
	var got []line
	for _, r := range recs {
		got = append(got, line{r.Server, r.Tool, r.Endpoint, r.Outcome})
		assert.Equal(t, "alice", r.Client)
		assert.Nil(t, r.Arguments, "arguments are off by default")
		assert.False(t, r.Time.Before(start.Add(-time.Second)), "time %v", r.Time)
		assert.GreaterOrEqual(t, r.DurationMS, 0.0)
	}
	assert.Equal(t, []line{
		{"a", "echo", "mcp", "ok"},
		{"b", "fail", "mcp", "tool_error"},
		{"a", "sleep", "mcp", "denied"},
		{"b", "no-such-tool", "mcp", "error"},
		{"b", "add", "rpc", "ok"},
	}, got)
	assert.Equal(t, int64(gateway.CodeDenied), recs[2].Code)
	assert.Contains(t, recs[2].Error, `tools.deny "sleep"`)
	assert.Equal(t, int64(-32602), recs[3].Code)
	assert.NotContains(t, log.String(), "secret value")
}

func TestAuditRecordsArgumentsWhenAskedToAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	_, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{"demo": {Target: engineServe()}},
		Audit:   gateway.Audit{File: path, Arguments: true},
	})
	_, body, _ := post(t, gw.RouteURL(), "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"recorded"}},"server_id":"demo"}`)
	require.NotNil(t, member(t, body, "result"))

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var r gateway.AuditRecord
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(data), &r), "%s", data)
	assert.Equal(t, "anonymous", r.Client)
	assert.Equal(t, "ok", r.Outcome)
	assert.JSONEq(t, `{"text":"recorded"}`, string(r.Arguments))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the audit log is private")
}
