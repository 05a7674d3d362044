package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/gateway"
)

const examplesDir = "../../examples"

// Every engine command line of examples/load-test.sh (commented ones
// too) parses with the engine's own flags, arguments and required flags.
func TestExampleLoadScriptParses(t *testing.T) {
	f, err := os.Open(filepath.Join(examplesDir, "load-test.sh"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "#"))
		rest, ok := strings.CutPrefix(line, "$ENGINE ")
		if !ok {
			continue
		}
		words, err := splitCommand(rest)
		require.NoError(t, err, line)
		checkCommandLine(t, words)
		lines++
	}
	require.NoError(t, sc.Err())
	assert.GreaterOrEqual(t, lines, 5, "the script's command lines were found")
}

// examples/gateway.json is a gateway file the gateway accepts.
func TestExampleGatewayConfigParses(t *testing.T) {
	t.Setenv("AGENT_TOKEN", "example-token-0123456789abcdef")
	cfg, err := gateway.LoadConfig(filepath.Join(examplesDir, "gateway.json"))
	require.NoError(t, err)
	require.Len(t, cfg.Servers, 2)
	assert.Equal(t, 2, cfg.Servers["demo"].Pool)
	assert.Equal(t, []string{"sleep", "large"}, cfg.Servers["slow"].Policy.Tools.Deny)
	require.Len(t, cfg.Clients, 1)
	assert.Equal(t, "example-token-0123456789abcdef", cfg.Clients[0].Token)
	checkCommandLine(t, []string{"gateway", "--config", "examples/gateway.json", "--listen", "127.0.0.1:8080"})
}
