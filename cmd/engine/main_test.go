package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// engineBin is the engine binary built once by TestMain (set
// ENGINE_TEST_RACE_BIN=1 to build it with -race).
var engineBin string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, testkit.MainOptions{
		EngineBin: &engineBin,
		// The suite takes ~1 min on 2 cores with it.
		RaceEngine: os.Getenv("ENGINE_TEST_RACE_BIN") == "1",
	}))
}

type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
	cpu            time.Duration // user + system (runEngine only)
}

// engine runs the binary with args (and stdin, if given) and returns its
// output and exit status; it fails the test if it does not exit within
// a minute.
func engine(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return engineEnv(t, nil, stdin, args...)
}

// engineEnv is engine with env ("NAME=value") added to the test's
// environment.
func engineEnv(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, engineBin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("engine %v: %v (stderr: %s)", args, err, r.stderr)
	}
	require.NoError(t, ctx.Err(), "engine %v did not exit in time; stderr: %s", args, r.stderr)
	return r
}

// ok runs the binary and requires exit status 0.
func ok(t *testing.T, args ...string) result {
	t.Helper()
	r := engine(t, "", args...)
	require.Equal(t, 0, r.code, "engine %v failed: %s", args, r.stderr)
	return r
}

// oneLineError requires a single "engine: ..." line on stderr.
func oneLineError(t *testing.T, r result) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	require.Len(t, lines, 1, "want one line on stderr, got: %q", r.stderr)
	require.True(t, strings.HasPrefix(lines[0], "engine: "), lines[0])
	return lines[0]
}

func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	r := ok(t, "--help")
	for _, c := range []string{"serve", "list", "call", "read", "prompt", "ping", "load", "worker"} {
		assert.Regexp(t, `(?m)^  `+c+` +\S.*$`, r.stdout, "command %s with a description", c)
	}
}

func TestPing(t *testing.T) {
	t.Parallel()
	// The demo server serves both eras by default, so it is spoken to in
	// 2026-07-28, where the ping is a server/discover round trip.
	r := ok(t, "ping")
	assert.Regexp(t, `^pong from demoserver 1\.0\.0 \(protocol 2026-07-28, modern era\): ping .+, connect .+\n$`, r.stdout)
	assert.Empty(t, r.stderr)
	r = ok(t, "ping", "--demo-args", "--era legacy")
	assert.Regexp(t, `^pong from demoserver 1\.0\.0 \(protocol 2025-11-25, legacy era\): ping .+, connect .+\n$`, r.stdout)
	r = ok(t, "ping", "--json", "--protocol-version", "2026-07-28", "--demo-args", "--era modern")
	var m struct {
		ProtocolVersion string `json:"protocolVersion"`
		Era             string `json:"era"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &m), r.stdout)
	assert.Equal(t, "2026-07-28", m.ProtocolVersion)
	assert.Equal(t, "modern", m.Era)

	r = ok(t, "ping", "--json", "--protocol-version", "2025-06-18", "--strict")
	var p struct {
		OK              bool   `json:"ok"`
		ProtocolVersion string `json:"protocolVersion"`
		Server          struct{ Name string }
		PingUs          int64 `json:"ping_us"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &p), r.stdout)
	assert.True(t, p.OK)
	assert.Equal(t, "2025-06-18", p.ProtocolVersion)
	assert.Equal(t, "demoserver", p.Server.Name)
	assert.Positive(t, p.PingUs)
}

func TestListTools(t *testing.T) {
	t.Parallel()
	r := ok(t, "list", "tools")
	assert.Regexp(t, `(?m)^NAME +ARGUMENTS +DESCRIPTION$`, r.stdout)
	assert.Regexp(t, `(?m)^echo +text\*:string +Returns its text argument unchanged\.$`, r.stdout)
	assert.Regexp(t, `(?m)^fail +`, r.stdout)
	assert.Regexp(t, `(?m)^add\s+a\*:number, b\*:number\s+Adds two numbers\.`, r.stdout)
	assert.Contains(t, r.stdout, "(* required argument)")

	r = ok(t, "list", "tools", "--json")
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.NotEmpty(t, res.Tools)
	assert.Equal(t, "echo", res.Tools[0].Name)
	assert.NotEmpty(t, res.Tools[0].InputSchema)
}

func TestListOthers(t *testing.T) {
	t.Parallel()
	// 25 resources over pages of 10: pagination is followed to the end.
	r := ok(t, "list", "resources", "--demo-args", "--resources 25")
	assert.Equal(t, 26, strings.Count(r.stdout, "\n"), r.stdout)
	assert.Contains(t, r.stdout, "demo://resource/25")

	r = ok(t, "list", "resources", "--json", "--demo-args", "--resources -1")
	assert.JSONEq(t, `{"resources":[]}`, r.stdout)

	r = ok(t, "list", "templates")
	assert.Contains(t, r.stdout, "demo://item/{id}")

	r = ok(t, "list", "prompts")
	assert.Regexp(t, `(?m)^greet +name\* +Greets someone by name\.$`, r.stdout)

	r = ok(t, "list", "--json", "prompts")
	var res map[string][]map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.NotEmpty(t, res["prompts"])
}

func TestCallEcho(t *testing.T) {
	t.Parallel()
	r := ok(t, "call", "echo", "--args", `{"text":"hi"}`)
	assert.Equal(t, "hi\n", r.stdout)
	assert.Empty(t, r.stderr)

	r = ok(t, "call", "echo", "--args", `{"text":"hi"}`, "--json")
	var res struct {
		Content []struct{ Type, Text string } `json:"content"`
		IsError bool                          `json:"isError"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "text", res.Content[0].Type)
	assert.Equal(t, "hi", res.Content[0].Text)
	assert.False(t, res.IsError)

	r = ok(t, "call", "add", "--arg", "a=1", "-a", "b=2.5")
	assert.Equal(t, "3.5\n", r.stdout)
}

func TestCallFailIsAnError(t *testing.T) {
	t.Parallel()
	r := engine(t, "", "call", "fail", "--args", `{"message":"kaputt"}`)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, `engine: tool "fail" returned an error (isError): kaputt`, oneLineError(t, r))

	r = engine(t, "", "call", "fail", "--json")
	assert.Equal(t, 1, r.code)
	var res struct {
		IsError bool `json:"isError"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.True(t, res.IsError)
}

func TestCallRPCErrorAndTimeout(t *testing.T) {
	t.Parallel()
	r := engine(t, "", "call", "no-such-tool")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, oneLineError(t, r), "server returned error -32602 (invalid params): unknown tool: no-such-tool")

	r = engine(t, "", "call", "sleep", "--arg", "ms=30000", "--timeout", "200ms")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, `engine: tool "sleep" timed out after 200ms (raise it with --timeout)`, oneLineError(t, r))
	assert.Less(t, r.took, 20*time.Second)
}

func TestReadAndPrompt(t *testing.T) {
	t.Parallel()
	r := ok(t, "read", "demo://resource/2")
	assert.Equal(t, "Resource 2: this is a text resource.\n", r.stdout)

	r = ok(t, "read", "demo://resource/1")
	assert.Contains(t, r.stdout, "[binary demo://resource/1: application/octet-stream")

	r = engine(t, "", "read", "demo://nope")
	assert.Equal(t, 1, r.code)
	// 2026-07-28 (the demo server's default era) says -32602 with the URI
	// in data; older revisions said -32002.
	line := oneLineError(t, r)
	assert.Contains(t, line, "error -32602")
	assert.Contains(t, line, "resource not found: demo://nope")

	r = ok(t, "prompt", "greet", "--arg", "name=Ada")
	assert.Contains(t, r.stdout, "[user]\n")
	assert.Contains(t, r.stdout, "Ada")

	r = ok(t, "prompt", "greet", "--arg", "name=Ada", "--json")
	var res struct {
		Messages []struct{ Role string } `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.NotEmpty(t, res.Messages)
}

func TestBadStdioCommandFailsFast(t *testing.T) {
	t.Parallel()
	// With a connect timeout of an hour, only giving up at once ends the
	// command within engine's one-minute limit; the bound below is far
	// from both.
	r := engine(t, "", "ping", "--stdio", "/nonexistent/mcp-server --flag 'quoted arg'", "--connect-timeout", "1h")
	assert.Equal(t, 1, r.code)
	line := oneLineError(t, r)
	assert.Contains(t, line, "cannot start server /nonexistent/mcp-server")
	assert.Contains(t, line, "no such file or directory")
	assert.Less(t, r.took, 30*time.Second, "gave up at once, not after the connect timeout")

	r = engine(t, "", "list", "tools", "--stdio", "mcp-server-not-in-path-anywhere")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, oneLineError(t, r), "executable file not found")
}

func TestServerThatNeverConnects(t *testing.T) {
	t.Parallel()
	// Starts, but exits at once, every time: after Config.StartAttempts
	// tries the engine gives up before --connect-timeout, naming the exit
	// status and what the server said on stderr.
	r := engine(t, "", "ping", "--stdio", "sh -c 'echo oops >&2; exit 0'", "--connect-timeout", "1h")
	assert.Equal(t, 1, r.code)
	line := oneLineError(t, r)
	assert.Contains(t, line, "failed before its handshake on each of 3 tries")
	assert.Contains(t, line, "exited with code 0")
	assert.Contains(t, line, "oops")
	assert.Less(t, r.took, 30*time.Second, "gave up after its tries, not after the connect timeout")

	// Starts and stays silent.
	r = engine(t, "", "ping", "--stdio", "sleep 30", "--connect-timeout", "500ms")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, oneLineError(t, r), "did not answer the initialize request")
	assert.Less(t, r.took, 10*time.Second)
}

func TestVersionMismatch(t *testing.T) {
	t.Parallel()
	// --answer-version is initialize's fault: the handshake era.
	r := engine(t, "", "ping", "--demo-args", "--era legacy --answer-version 1999-01-01")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, oneLineError(t, r), `protocol version mismatch`)
}

func TestExplicitTargets(t *testing.T) {
	t.Parallel()
	r := ok(t, "ping", "--stdio", engineBin+` serve --name "my server"`)
	assert.Contains(t, r.stdout, "pong from my server 1.0.0")

	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	doc, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"demo":  map[string]any{"command": engineBin, "args": []string{"serve", "--name", "from-config"}},
		"other": map[string]any{"command": engineBin, "args": []string{"serve", "--name", "other"}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, doc, 0o600))
	r = ok(t, "ping", "--config", cfg, "--server", "demo")
	assert.Contains(t, r.stdout, "pong from from-config")

	r = engine(t, "", "ping", "--config", cfg)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "pick one with --server (demo, other)")

	r = engine(t, "", "ping", "--config", cfg, "--server", "nope")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, oneLineError(t, r), `no server "nope"`)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"bogus"},
		{"list"},
		{"list", "gadgets"},
		{"call"},
		{"ping", "--no-such-flag"},
		{"call", "echo", "--args", "[1,2]"},
		{"ping", "--stdio", "unterminated 'quote"},
		{"ping", "--stdio", "x", "--config", "y"},
		{"ping", "--server", "x"},
		{"load", "-s", "0"},
		{"ping", "--protocol-version", "2099-01-01"},
		{"ping", "--protocol-version", "latest"},
		{"load", "--protocol-version", "2099-01-01"},
		{"serve", "--era", "future"},
	} {
		r := engine(t, "", args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.True(t, strings.HasPrefix(r.stderr, "engine: "), "%v: %s", args, r.stderr)
		assert.Empty(t, r.stdout, "%v", args)
	}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"

func TestServeStdio(t *testing.T) {
	t.Parallel()
	// EOF on stdin: exit 0; every stdout line is a JSON-RPC message, logs
	// and noise go to stderr.
	r := engine(t, initialize+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", "serve", "--stderr-spam", "300", "--log-level", "debug")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 2, r.stdout)
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		assert.Equal(t, "2.0", m["jsonrpc"])
		assert.Contains(t, m, "result")
	}
	assert.Contains(t, r.stderr, "stderr noise")

	r = engine(t, "", "serve")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
}

func TestServeExitAfterCrashes(t *testing.T) {
	t.Parallel()
	r := engine(t, initialize+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", "serve", "--exit-after", "1")
	assert.Equal(t, exitCrash, r.code)
	// Only the initialize was answered.
	assert.Equal(t, 1, strings.Count(r.stdout, "\n"), r.stdout)
	assert.Contains(t, r.stdout, `"id":1`)
}

func regexpQuote(s string) string { return strings.ReplaceAll(s, ".", `\.`) }
