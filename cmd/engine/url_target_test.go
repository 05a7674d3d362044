package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The client commands and engine load reach HTTP and WebSocket servers
// through --url, here `engine serve` over each transport as a real process.
func TestURLTargetsForCallAndLoad(t *testing.T) {
	for _, kind := range []string{"http", "sse", "ws"} {
		t.Run(kind, func(t *testing.T) {
			p := startServe(t, kind)
			args := []string{"--url", p.url}
			if kind == "sse" {
				args = append(args, "--transport", "sse")
			}
			r := ok(t, append([]string{"call", "echo", "--args", `{"text":"over ` + kind + `"}`}, args...)...)
			assert.Contains(t, r.stdout, "over "+kind)

			r = ok(t, append([]string{"load", "-s", "2", "-c", "4", "-n", "400", "-q", "-O", "json"}, args...)...)
			assert.Contains(t, r.stdout, `"calls": 400`)
		})
	}
}

func TestURLTargetFlagErrors(t *testing.T) {
	r := engine(t, "", "ping", "--url", "http://127.0.0.1:1/mcp", "--stdio", "x")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "exclusive")
	r = engine(t, "", "ping", "--bearer", "tok")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--url only")
	r = engine(t, "", "ping", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization Bearer s3cret")
	assert.Equal(t, 2, r.code)
	assert.NotContains(t, r.stderr, "s3cret", "a malformed header is not echoed")
}

// engine load --prometheus serves the engine's metrics while it runs.
func TestLoadServesPrometheusMetrics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, engineBin, "load", "-s", "1", "-c", "2", "-z", "4s", "-q", "--prometheus", addr)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	serving := make(chan struct{})
	go func() { // exits when the load process closes stderr
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "prometheus metrics at") {
				once = true
				close(serving)
			}
		}
	}()
	select {
	case <-serving:
	case <-ctx.Done():
		t.Fatal("no prometheus line on stderr")
	}
	var body string
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		// The era probe (server/discover, which the legacy demo server
		// refuses) is measured first: wait for the calls themselves.
		return strings.Contains(body, "mcp_client_operation_duration_seconds_count") && strings.Contains(body, `mcp_method_name="tools/call"`)
	}, 20*time.Second, 100*time.Millisecond)
	assert.Contains(t, body, "mcpengine_client_sessions")
	require.NoError(t, cmd.Wait())
}

// --otel stdout on a client command prints the call's span, named and
// attributed by the MCP conventions, and never the tool arguments unless
// asked.
func TestOtelStdoutShowsTheCallSpan(t *testing.T) {
	r := ok(t, "call", "echo", "--args", `{"text":"secret-argument"}`, "--otel", "stdout")
	assert.Contains(t, r.stderr, `"Name": "tools/call echo"`)
	assert.Contains(t, r.stderr, `"gen_ai.tool.name"`)
	assert.NotContains(t, r.stderr, "secret-argument")
	r = ok(t, "call", "echo", "--args", `{"text":"opted-in"}`, "--otel", "stdout", "--otel-record-arguments")
	assert.Contains(t, r.stderr, "opted-in")

}
