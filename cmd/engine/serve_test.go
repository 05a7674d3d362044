package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// servedProcess is a listening engine command ("engine serve" over HTTP,
// "engine gateway") started by a test.
type servedProcess struct {
	cmd *exec.Cmd
	url string // what it printed it serves on

	mu      sync.Mutex
	stderr  strings.Builder
	drained chan struct{} // closed when stderr reached EOF
	// wrote is signalled (without blocking) after every line of stderr,
	// for a test waiting for what the process logs.
	wrote   chan struct{}
	exited  chan struct{} // closed when Wait returned
	waitErr error
}

// startServe starts engine serve with args and waits for the line that
// names its URL. Cleanup kills it if it is still running.
func startServe(t testing.TB, transport string, args ...string) *servedProcess {
	t.Helper()
	prefix := "serving MCP over " + transport + " at "
	return startListening(t, nil, func(line string) (string, bool) { return strings.CutPrefix(line, prefix) },
		append([]string{"serve", "--transport", transport}, args...)...)
}

// startListening starts the engine binary with args (env added to the
// test's environment) and waits until urlIn finds the URL it listens on in
// a line of its stderr. Cleanup kills it if it is still running.
func startListening(t testing.TB, env []string, urlIn func(line string) (string, bool), args ...string) *servedProcess {
	t.Helper()
	cmd := exec.Command(engineBin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &servedProcess{cmd: cmd, drained: make(chan struct{}), exited: make(chan struct{}), wrote: make(chan struct{}, 1)}
	found := make(chan string, 1)
	// Owner: the test. Exits at stderr's EOF, when the process exits
	// (cleanup kills it at the latest).
	go func() {
		defer close(p.drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			select {
			case p.wrote <- struct{}{}:
			default:
			}
			if url, ok := urlIn(line); ok {
				select {
				case found <- url:
				default:
				}
			}
		}
	}()
	// Owner: the test. Exits when the process does, after stderr is
	// drained (Wait closes the pipe).
	go func() {
		<-p.drained
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	select {
	case p.url = <-found:
	case <-p.exited:
		t.Fatalf("engine %s exited: %v; stderr: %s", args[0], p.waitErr, p.stderrText())
	case <-time.After(time.Minute):
		t.Fatalf("engine %s printed no URL; stderr: %s", args[0], p.stderrText())
	}
	return p
}

func (p *servedProcess) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// exitCode waits for the process to exit and returns its status.
func (p *servedProcess) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		t.Fatalf("engine serve did not exit; stderr: %s", p.stderrText())
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, p.waitErr)
	return 0
}

// postMCP POSTs one JSON-RPC message to a Streamable HTTP endpoint.
func postMCP(t *testing.T, client *http.Client, url, session, body string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestServeStreamableHTTP(t *testing.T) {
	t.Parallel()
	p := startServe(t, "http", "--listen", "127.0.0.1:0", "--name", "over-http")
	require.True(t, strings.HasPrefix(p.url, "http://127.0.0.1:"), p.url)
	require.True(t, strings.HasSuffix(p.url, "/mcp"), p.url)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	resp, body := postMCP(t, client, p.url, "", strings.TrimSpace(initialize))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"over-http"`)
	session := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)

	resp, _ = postMCP(t, client, p.url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	resp, body = postMCP(t, client, p.url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi over http"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Contains(t, body, `"hi over http"`)

	resp, _ = postMCP(t, client, p.url, "no-such-session", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	// SIGTERM: a graceful exit with status 0.
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, p.exitCode(t), p.stderrText())
}

func TestServeOtherTransportsPrintTheirURL(t *testing.T) {
	t.Parallel()
	p := startServe(t, "ws", "--listen", "localhost:0")
	assert.True(t, strings.HasPrefix(p.url, "ws://127.0.0.1:"), p.url)
	assert.True(t, strings.HasSuffix(p.url, "/ws"), p.url)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, 0, p.exitCode(t))

	p = startServe(t, "sse")
	assert.True(t, strings.HasSuffix(p.url, "/sse"), p.url)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, p.exitCode(t))
}

func TestServeHTTPExitAfterCrashes(t *testing.T) {
	t.Parallel()
	p := startServe(t, "http", "--exit-after", "1")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, body := postMCP(t, client, p.url, "", strings.TrimSpace(initialize))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	session := resp.Header.Get("Mcp-Session-Id")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", session)
	if resp, err := client.Do(req); err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Error(t, err, "the ping is not answered")
	}
	assert.Equal(t, exitCrash, p.exitCode(t))
	assert.Contains(t, p.stderrText(), "exiting on purpose")
}

func TestServeTransportUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--transport", "http", "--listen", "0.0.0.0:0"}, "--allow-remote"},
		{[]string{"serve", "--transport", "http", "--listen", ":0"}, "not a loopback address"},
		{[]string{"serve", "--transport", "carrier-pigeon"}, "use stdio, http, sse or ws"},
		{[]string{"serve", "--fail-nth", "2"}, "--fail-nth needs --transport http, sse or ws"},
		{[]string{"serve", "--transport", "http", "--answer-mode", "xml"}, "--answer-mode"},
	} {
		r := engine(t, "", tc.args...)
		assert.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}
