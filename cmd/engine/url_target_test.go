package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
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
	// The run lasts until the test interrupts it, so that the scrapes
	// below never race its end, however slowly the machine goes.
	cmd := exec.CommandContext(ctx, engineBin, "load", "-s", "1", "-c", "2", "-z", "1h", "-q", "--prometheus", addr)
	cmd.WaitDelay = 5 * time.Second
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

	// initialize and tools/list are recorded before the first measured
	// call, so any operation-duration series is not enough: wait for the
	// tools/call one itself.
	callSeries := regexp.MustCompile(`(?m)^mcp_client_operation_duration_seconds_count\{[^}]*mcp_method_name="tools/call"[^}]*\} [1-9]`)
	var body string
	for !callSeries.MatchString(body) {
		select {
		case <-ctx.Done():
			t.Fatalf("no tools/call series while the load ran; last scrape:\n%s", body)
		case <-time.After(50 * time.Millisecond): // between scrapes
		}
		body = scrapeMetrics(addr)
	}
	assert.Regexp(t, `(?m)^mcpengine_client_sessions\{[^}]*mcpengine_session_state="ready"[^}]*\} 1$`, body)

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitInterrupted, exit.ExitCode(), "an interrupted run exits 130")
}

// scrapeMetrics returns the body of one GET /metrics, or "" if it failed.
func scrapeMetrics(addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
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

// A URL nothing answers at fails the command at once (well within the
// 60 s connect timeout given), in plain words, the reason said once and no
// hint about a stderr a URL server does not have.
func TestPingOfAnUnreachableURLFailsAtOncePlainly(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	for _, url := range []string{"http://" + closed + "/mcp", "ftp://x"} {
		r := engine(t, "", "ping", "--url", url, "--connect-timeout", "60s")
		assert.Equal(t, 1, r.code)
		line := oneLineError(t, r)
		assert.Contains(t, line, "cannot reach")
		assert.NotContains(t, line, "jsonrpc")
		assert.NotContains(t, line, "within", "not a timeout")
		assert.NotContains(t, line, "stderr")
		if url == "ftp://x" {
			assert.Contains(t, line, `unsupported URL scheme "ftp"`)
		} else {
			assert.Equal(t, 1, strings.Count(line, "connection refused"), line)
		}
	}
}

// A --url without a scheme: a loopback one is http://, as a server one
// started to try is; another host gets the fix, not "[invalid URL] is not
// an absolute URL".
func TestURLWithoutScheme(t *testing.T) {
	p := startServe(t, "http")
	bare := strings.TrimPrefix(p.url, "http://")
	require.NotEqual(t, p.url, bare)
	r := ok(t, "call", "echo", "--url", bare, "--arg", "text=no scheme")
	assert.Contains(t, r.stdout, "no scheme")

	r = engine(t, "", "ping", "--url", "mcp.example.com/mcp")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "write https://mcp.example.com/mcp")
	assert.NotContains(t, r.stderr, "invalid URL")
}
