package mcpengine_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
)

// everythingOverHTTP starts the TypeScript reference server in one of its
// HTTP modes ("streamableHttp" or "sse") on a free loopback port, as a real
// subprocess, and returns its base URL once it accepts connections.
func everythingOverHTTP(t *testing.T, mode string) string {
	stdio := everythingServer(t) // skips without Node or testdata/node
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, stdio.Command, stdio.Args[0], mode)
	cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reference server (%s) never listened on %s: %v", mode, addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("http://%s", addr)
}

func TestTypeScriptReferenceServerOverStreamableHTTP(t *testing.T) {
	base := everythingOverHTTP(t, "streamableHttp")
	everythingRoundTrip(t, mcpengine.ServerConfig{URL: base + "/mcp", Type: "streamable-http"})
}

func TestTypeScriptReferenceServerOverLegacySSE(t *testing.T) {
	base := everythingOverHTTP(t, "sse")
	everythingRoundTrip(t, mcpengine.ServerConfig{URL: base + "/sse", Type: "sse"})
}

// A URL given without a type tries Streamable HTTP first; the legacy
// server refuses the POST and the engine falls back to HTTP+SSE.
func TestURLTargetFallsBackToLegacySSE(t *testing.T) {
	base := everythingOverHTTP(t, "sse")
	everythingRoundTrip(t, mcpengine.ServerConfig{URL: base + "/sse"})
}
