package gateway_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
)

// everythingServer is the TypeScript reference server over stdio, or
// skips the test when it is not installed (`make node-deps`).
func everythingServer(t *testing.T) mcpengine.ServerConfig {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	entry, _ := filepath.Abs("../testdata/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skip("testdata/node is not installed: run `make node-deps`")
	}
	return mcpengine.ServerConfig{Command: node, Args: []string{entry, "stdio"}}
}

// The reference server's simulate-research-query must run as a task
// (execution.taskSupport "required"); the gateway's clients, which see no
// tasks capability on the gateway, call it plainly, and the gateway runs
// it as a task upstream, through either endpoint.
func TestGatewayRunsAToolThatRequiresATask(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{
		"ref": {Target: everythingServer(t)},
	}})

	status, body, _ := post(t, gw.RouteURL(), "",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"simulate-research-query","arguments":{"topic":"go"}},"server_id":"ref"}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.NotContains(t, string(body), "task augmentation")
	assert.Contains(t, string(member(t, body, "result")), "go")

	s := connect(t, clientEngine(t, mcpengine.Config{}), "gw", gw, "")
	res, err := s.CallTool(testCtx(t, 60*time.Second), "ref__simulate-research-query", map[string]any{"topic": "rust"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s", fmt.Sprint(res.Content))
	assert.Contains(t, toolText(t, res), "rust")
}
