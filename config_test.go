package mcpengine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
)

const claudeDesktopConfig = `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${MCPENGINE_TEST_ROOT}"],
      "env": {"API_KEY": "${MCPENGINE_TEST_SECRET}", "PLAIN": "x"},
      "cwd": "/tmp"
    },
    "remote": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${MCPENGINE_TEST_SECRET}"}}
  }
}`

func TestMCPServersConfigExpandsEnvironmentReferences(t *testing.T) {
	t.Setenv("MCPENGINE_TEST_ROOT", "/srv/data")
	t.Setenv("MCPENGINE_TEST_SECRET", "s3cret")
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	require.NoError(t, os.WriteFile(path, []byte(claudeDesktopConfig), 0o600))

	f, err := mcpengine.LoadConfigFile(path)
	require.NoError(t, err)
	files, err := f.Server("files")
	require.NoError(t, err)
	assert.Equal(t, "npx", files.Command)
	assert.Equal(t, []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"}, files.Args)
	assert.Equal(t, map[string]string{"API_KEY": "s3cret", "PLAIN": "x"}, files.Env)
	assert.Equal(t, "/tmp", files.Cwd)

	remote, err := f.Server("remote")
	require.NoError(t, err)
	assert.Equal(t, "Bearer s3cret", remote.Headers["Authorization"])

	_, err = f.Server("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "files, remote", "the error lists what exists")
}

func TestMCPServersConfigRejectsDocumentsWithoutServers(t *testing.T) {
	_, err := mcpengine.ParseConfig([]byte(`{"servers": {}}`))
	require.Error(t, err)
	_, err = mcpengine.ParseConfig([]byte(`{not json`))
	require.Error(t, err)
}

func TestURLTargetsAreRefusedClearlyUntilHTTPTransportsExist(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "remote", Server: mcpengine.ServerConfig{URL: "https://example.invalid/mcp"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not supported yet")
}
