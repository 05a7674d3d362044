package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// everythingStdio is the --stdio command line of the TypeScript reference
// server ("everything"), or skips the test when it is not installed.
func everythingStdio(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	entry, _ := filepath.Abs("../../testdata/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skip("testdata/node is not installed: run `make node-deps`")
	}
	return node + " " + entry + " stdio"
}

// A tool whose execution.taskSupport is "required" refuses a plain
// tools/call; `engine call` runs it as a task, as Session.CallTool does.
func TestCallRunsAToolThatRequiresATask(t *testing.T) {
	t.Parallel()
	srv := everythingStdio(t)
	r := ok(t, "call", "simulate-research-query", "--stdio", srv, "--arg", "topic=go")
	assert.Contains(t, r.stdout, "go")
	assert.NotContains(t, r.stderr, "task augmentation")

	r = ok(t, "call", "simulate-research-query", "--stdio", srv, "--arg", "topic=go", "--json")
	assert.Contains(t, r.stdout, `"content"`)
}
