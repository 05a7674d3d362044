package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandLineRedactsCredentials(t *testing.T) {
	cmd := newLoadCmd()
	require.NoError(t, cmd.ParseFlags([]string{"-r", "200", "--url", "http://h/mcp", "--bearer", "tok-123", "--header", "X-Key: k-456", "--args", `{"text":"it's"}`, "-q"}))
	got := commandLine(cmd, nil)
	assert.Contains(t, got, "--rate 200")
	assert.Contains(t, got, "--url http://h/mcp")
	assert.Contains(t, got, "--bearer '[redacted]'")
	assert.Contains(t, got, "--header '[redacted]'")
	assert.Contains(t, got, `--args '{"text":"it'\''s"}'`)
	assert.Contains(t, got, "--quiet")
	assert.NotContains(t, got, "tok-123")
	assert.NotContains(t, got, "k-456")
}
