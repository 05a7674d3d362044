package gateway_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
)

func TestLoadConfigSaysWhereAnUnknownGatewayKeyIs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {"files": {"command": "x"}},
  "gateway": {"servers": {"files": {"policy": {"tools": {
    "dney": ["write_*"]}}}}}}`), 0o600))
	_, err := gateway.LoadConfig(path)
	var ce *mcpengine.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, `unknown field "dney" in gateway.servers.files.policy.tools; did you mean "deny"?`, ce.Msg)
	assert.Equal(t, path, ce.File)
	assert.Equal(t, 3, ce.Line)
	assert.Equal(t, 5, ce.Column)
}
