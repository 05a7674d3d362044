package mcpengine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
)

func loadConfigError(t *testing.T, doc string) (*mcpengine.ConfigError, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o600))
	_, err := mcpengine.LoadConfigFile(path)
	require.Error(t, err)
	var ce *mcpengine.ConfigError
	require.ErrorAs(t, err, &ce, "a typed, located error: %v", err)
	return ce, path
}

func TestConfigSyntaxErrorSaysLineColumnAndShowsTheLine(t *testing.T) {
	ce, path := loadConfigError(t, "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"node\" \"args\": []}\n  }\n}\n")
	assert.Equal(t, 3, ce.Line)
	assert.Equal(t, 29, ce.Column, "the column of the offending quote")
	msg := ce.Error()
	assert.True(t, strings.HasPrefix(msg, path+":3:29: JSON syntax error: "), msg)
	assert.Contains(t, msg, `"x": {"command": "node" "args": []}`, "the offending line")
	assert.NotContains(t, msg, `\n`, "no Go-quoted dump")
	assert.True(t, ce.Permanent())
}

func TestConfigMisspeltFieldGetsADidYouMean(t *testing.T) {
	ce, path := loadConfigError(t, `{"mcpServers": {
  "x": {
    "comand": "node",
    "args": ["server.js"]
  }
}}`)
	assert.Equal(t, `unknown field "comand" in server "x"; did you mean "command"?`, ce.Msg)
	assert.Equal(t, 3, ce.Line)
	assert.Equal(t, 5, ce.Column)
	assert.True(t, strings.HasPrefix(ce.Error(), path+":3:5: "), ce.Error())
}

func TestConfigUnknownFieldInsideAuthSaysWhere(t *testing.T) {
	ce, _ := loadConfigError(t, `{"mcpServers": {"remote": {"url": "https://h/mcp",
  "auth": {"oauth": {"clientID": "a", "dney": ["s"]}}}}}`)
	assert.Equal(t, `unknown field "clientID" in "auth.oauth" of server "remote"; did you mean "clientId"?`, ce.Msg)
	assert.Equal(t, 2, ce.Line)

	ce, _ = loadConfigError(t, `{"mcpServers": {"remote": {"url": "https://h/mcp", "tls": {"zzz": true}}}}`)
	assert.Contains(t, ce.Msg, `unknown field "zzz" in "tls" of server "remote" (known: caFile, certFile,`)
}

func TestConfigServerWithNeitherCommandNorURLNamesItsUnknownFields(t *testing.T) {
	ce, _ := loadConfigError(t, `{"mcpServers": {"x": {"executable": "node"}}}`)
	assert.Equal(t, `server "x" has neither a "command" nor a "url" (unknown fields: ["executable"])`, ce.Msg)
}

func TestConfigValueOfTheWrongKindSaysWhere(t *testing.T) {
	ce, _ := loadConfigError(t, "{\"mcpServers\": {\"x\": {\n\"command\": \"node\", \"args\": \"server.js\"}}}")
	assert.Equal(t, 2, ce.Line)
	assert.Contains(t, ce.Msg, `"args" of server "x" must be a list (string items), not a JSON string`)
}

func TestConfigToleratesOtherClientsKeys(t *testing.T) {
	// Claude Desktop, Cline and others keep keys of their own in the
	// same file; they resemble no field of ours and are left alone.
	cf, err := mcpengine.ParseConfig([]byte(`{"globalShortcut": "x", "mcpServers": {"x": {"command": "node",
		"disabled": false, "autoApprove": [], "alwaysAllow": ["a"]}}}`))
	require.NoError(t, err)
	assert.Equal(t, "node", cf.Servers["x"].Command)
}

func TestConfigWithoutMCPServersPointsAtTheKeyMeantForIt(t *testing.T) {
	ce, _ := loadConfigError(t, "{\n  \"mcpServer\": {\"x\": {\"command\": \"node\"}}\n}")
	assert.Equal(t, 2, ce.Line)
	assert.Contains(t, ce.Msg, `did you mean "mcpServers" for "mcpServer"?`)
	ce, _ = loadConfigError(t, `{"servers": {"x": {"command": "node"}}}`)
	assert.Contains(t, ce.Msg, `VS Code's name for it: rename it "mcpServers"`)
	ce, _ = loadConfigError(t, `{}`)
	assert.Equal(t, 0, ce.Line)
	assert.Contains(t, ce.Msg, `no "mcpServers" object`)
}
