package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostPost POSTs body to url naming host in the Host header, over client.
func hostPost(t *testing.T, client *http.Client, url, host, body string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// engine serve --transport http: h2c with prior knowledge, and the
// DNS-rebinding protection with --allowed-host.
func TestServeHTTPSpeaksH2CAndChecksTheHost(t *testing.T) {
	t.Parallel()
	p := startServe(t, "http", "--listen", "127.0.0.1:0", "--allowed-host", "mcp.example")
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protocols}
	defer tr.CloseIdleConnections()
	h2c := &http.Client{Transport: tr}

	resp, body := hostPost(t, h2c, p.url, "", strings.TrimSpace(initialize))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, 2, resp.ProtoMajor, "HTTP/2 without TLS")

	resp, body = hostPost(t, h2c, p.url, "evil.example", strings.TrimSpace(initialize))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	assert.Contains(t, body, "not allowed")
	resp, body = hostPost(t, h2c, p.url, "mcp.example:443", strings.TrimSpace(initialize))
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, p.exitCode(t), p.stderrText())
}

// engine gateway --allowed-host: the DNS-rebinding protection lets the
// named host in, and no other.
func TestGatewayCommandAllowedHost(t *testing.T) {
	t.Parallel()
	config := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"mcpServers": {"demo": {"command": "`+engineBin+`", "args": ["serve"]}}}`), 0o600))
	p := startGatewayCmd(t, nil, "--config", config, "--listen", "127.0.0.1:0", "--allowed-host", "gw.example", "--max-connections", "64")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	routed := `{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"demo"}`
	waitFor(t, p, "demo: 1/1 ready")
	resp, body := hostPost(t, client, p.url+"/rpc", "gw.example:8080", routed)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	resp, body = hostPost(t, client, p.url+"/rpc", "evil.example:8080", routed)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, p.exitCode(t), p.stderrText())
}
