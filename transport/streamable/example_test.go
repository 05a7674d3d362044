package streamable_test

import (
	"fmt"
	"net/http"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/streamable"
)

// A Dialer for a remote server that needs a bearer token and a custom
// header. All sessions of an engine share one client (one connection pool);
// String never shows credentials.
func ExampleDialer() {
	client := httpx.NewClient(httpx.ClientOptions{})
	defer client.CloseIdleConnections()

	var d transport.Dialer = streamable.Dialer{
		URL:           "https://mcp.example.com/mcp?key=not-for-logs",
		Client:        client,
		Header:        httpx.Merge(httpx.Bearer("token-from-a-vault"), http.Header{"X-Team": {"search"}}),
		FallbackToSSE: true, // also reach servers still on the 2024-11-05 HTTP+SSE transport
	}
	fmt.Println(d)
	// Output: streamable-http:https://mcp.example.com/mcp?[redacted]
}
