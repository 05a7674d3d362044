package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTellingLinesPickTheErrorNotTheStack(t *testing.T) {
	cases := []struct {
		name, stderr, want string
	}{
		{"node missing module", "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/nonexistent.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at Module._load (node:internal/modules/cjs/loader:1051:27)\n {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2\n",
			"Error: Cannot find module '/nonexistent.js'"},
		{"python import", "Traceback (most recent call last):\n  File \"/srv/server.py\", line 1, in <module>\n    import mcp\nModuleNotFoundError: No module named 'mcp'\n",
			"ModuleNotFoundError: No module named 'mcp'"},
		{"go panic", "panic: listen tcp: address already in use\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: listen tcp: address already in use"},
		{"two telling lines", "fatal: bad config\nhint: run setup first\n", "fatal: bad config | hint: run setup first"},
		{"nothing telling", "starting\nbye\nmore\n", "starting | bye"},
		{"empty", "", ""},
		{"blank lines only", "\n \r\n\t\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tellingLines([]byte(c.stderr)))
		})
	}
}

func TestTellingLinesAreBounded(t *testing.T) {
	long := make([]byte, 4096)
	for i := range long {
		long[i] = 'x'
	}
	got := tellingLines(append([]byte("Error: "), long...))
	assert.Len(t, got, tellingBytes+len("..."))
}
