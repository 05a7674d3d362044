package gateway_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/gateway"
)

func TestParseConfigReadsTheGatewaySection(t *testing.T) {
	t.Setenv("GW_TEST_TOKEN", "token-from-env-0123456789")
	tokenFile := filepath.Join(t.TempDir(), "bob.token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("token-from-file-0123456789\n"), 0o600))
	t.Setenv("GW_TOKEN_FILE", tokenFile)

	cfg, err := gateway.ParseConfig([]byte(`{
	  "mcpServers": {
	    "files": {"command": "files-server", "args": ["/tmp"]},
	    "remote": {"url": "http://127.0.0.1:1/mcp"},
	    "plain": {"command": "plain-server"}
	  },
	  "gateway": {
	    "servers": {
	      "files": {"pool": 3, "prefix": "fs_", "policy": {"tools": {"deny": ["write_*"]}, "maxToolTime": "2s", "rateLimit": {"perSecond": 5, "burst": 10}}},
	      "remote": {"prefix": "", "roots": [{"uri": "file:///srv"}]}
	    },
	    "clients": [
	      {"name": "alice", "token": "${GW_TEST_TOKEN}", "policy": {"servers": {"allow": ["files"]}, "maxResourceBytes": 1024},
	       "servers": {"files": {"prompts": {"deny": ["*"]}}}},
	      {"name": "bob", "tokenFile": "${GW_TOKEN_FILE}"}
	    ],
	    "audit": {"file": "-", "arguments": true},
	    "sessionIdleTimeout": "5m",
	    "readyWait": "1s",
	    "requestTimeout": "2m"
	  }
	}`))
	require.NoError(t, err)

	files := cfg.Servers["files"]
	assert.Equal(t, "files-server", files.Target.Command)
	assert.Equal(t, 3, files.Pool)
	assert.Equal(t, "fs_", files.Prefix)
	assert.Equal(t, []string{"write_*"}, files.Policy.Tools.Deny)
	assert.Equal(t, 2*time.Second, files.Policy.MaxToolTime)
	assert.Equal(t, &gateway.RateLimit{PerSecond: 5, Burst: 10}, files.Policy.RateLimit)
	assert.True(t, cfg.Servers["remote"].NoPrefix, `"prefix": "" means no prefix`)
	assert.Equal(t, "file:///srv", cfg.Servers["remote"].Roots[0].URI)
	assert.Equal(t, gateway.Server{Target: cfg.Servers["plain"].Target}, cfg.Servers["plain"], "servers without an entry get the defaults")

	require.Len(t, cfg.Clients, 2)
	assert.Equal(t, "token-from-env-0123456789", cfg.Clients[0].Token)
	assert.Equal(t, []string{"files"}, cfg.Clients[0].Policy.Servers.Allow)
	assert.Equal(t, int64(1024), cfg.Clients[0].Policy.MaxResourceBytes)
	assert.Equal(t, []string{"*"}, cfg.Clients[0].Servers["files"].Prompts.Deny)
	assert.Equal(t, "token-from-file-0123456789", cfg.Clients[1].Token)
	assert.Equal(t, gateway.Audit{File: "-", Arguments: true}, cfg.Audit)
	assert.Equal(t, 5*time.Minute, cfg.SessionIdleTimeout)
	assert.Equal(t, time.Second, cfg.ReadyWait)
	assert.Equal(t, 2*time.Minute, cfg.Engine.RequestTimeout)
}

func TestParseConfigRefusesMistakes(t *testing.T) {
	for name, doc := range map[string]string{
		"misspelt key":             `{"mcpServers": {"a": {"command": "x"}}, "gateway": {"servers": {"a": {"polcy": {}}}}}`,
		"misspelt rule":            `{"mcpServers": {"a": {"command": "x"}}, "gateway": {"servers": {"a": {"policy": {"tools": {"denny": ["*"]}}}}}}`,
		"server not in mcpServers": `{"mcpServers": {"a": {"command": "x"}}, "gateway": {"servers": {"b": {}}}}`,
		"bad duration":             `{"mcpServers": {"a": {"command": "x"}}, "gateway": {"readyWait": 5}}`,
		"token and tokenFile":      `{"mcpServers": {"a": {"command": "x"}}, "gateway": {"clients": [{"name": "c", "token": "t", "tokenFile": "f"}]}}`,
	} {
		_, err := gateway.ParseConfig([]byte(doc))
		assert.Error(t, err, name)
	}
}

func TestNewRefusesAnInvalidConfig(t *testing.T) {
	srv := map[string]gateway.Server{"a": {Target: engineServe()}, "b": {Target: engineServe()}}
	for name, cfg := range map[string]gateway.Config{
		"no servers":      {},
		"short token":     {Servers: srv, Clients: []gateway.Client{{Name: "c", Token: "short"}}},
		"same token":      {Servers: srv, Clients: []gateway.Client{{Name: "c", Token: aliceToken}, {Name: "d", Token: aliceToken}}},
		"same prefix":     {Servers: map[string]gateway.Server{"a": {Target: engineServe(), Prefix: "x_"}, "b": {Target: engineServe(), Prefix: "x_"}}},
		"nested prefixes": {Servers: map[string]gateway.Server{"a": {Target: engineServe()}, "b": {Target: engineServe(), Prefix: "a__b__"}}},
		"bad glob":        {Servers: map[string]gateway.Server{"a": {Target: engineServe(), Policy: gateway.Policy{Tools: gateway.Rules{Allow: []string{"[x"}}}}}},
		"unknown server":  {Servers: srv, Clients: []gateway.Client{{Name: "c", Token: aliceToken, Servers: map[string]gateway.Policy{"z": {}}}}},
		"no target":       {Servers: map[string]gateway.Server{"a": {}}},
		"bad server name": {Servers: map[string]gateway.Server{"a b": {Target: engineServe()}}},
	} {
		_, err := gateway.New(testCtx(t, 5*time.Second), cfg)
		assert.Error(t, err, name)
	}
}

func TestParseConfigReadsTheHTTPServerBounds(t *testing.T) {
	cfg, err := gateway.ParseConfig([]byte(`{
	  "mcpServers": {"files": {"command": "files-server"}},
	  "gateway": {"allowedHosts": ["mcp.internal", "gw.example:8443"], "allowedOrigins": ["https://app.example"],
	    "bodyTimeout": "5s", "headerTimeout": "20s", "maxConnections": 100}
	}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp.internal", "gw.example:8443"}, cfg.AllowedHosts)
	assert.Equal(t, []string{"https://app.example"}, cfg.AllowedOrigins)
	assert.Equal(t, 5*time.Second, cfg.BodyTimeout)
	assert.Equal(t, 20*time.Second, cfg.ReadHeaderTimeout)
	assert.Equal(t, 100, cfg.MaxConnections)
}
