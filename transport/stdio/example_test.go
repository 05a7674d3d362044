package stdio_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcpengine/mcpengine/transport/stdio"
)

// A server speaking MCP on its own stdin and stdout wraps them with
// NewStreamConn; here a pipe stands in for the client.
func ExampleNewStreamConn() {
	clientOut, serverIn, _ := os.Pipe()
	serverOut, clientIn, _ := os.Pipe()
	defer clientOut.Close()
	defer clientIn.Close()

	server := stdio.NewStreamConn(serverOut, serverIn, 0)
	defer server.Close(context.Background())

	_, _ = clientIn.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\r\n\n")
	req, _ := server.ReadFrame()
	fmt.Println(string(req))

	_ = server.WriteFrames([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	buf := make([]byte, 100)
	n, _ := clientOut.Read(buf)
	fmt.Printf("%q\n", buf[:n])
	// Output:
	// {"jsonrpc":"2.0","method":"ping","id":1}
	// "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
}

// A Dialer for a server started through npx. Each Dial starts a fresh
// process in its own process group; Close shuts the whole group down.
func ExampleNewDialer() {
	dialer := stdio.NewDialer(stdio.Config{
		Command:       "npx",
		Args:          []string{"-y", "@modelcontextprotocol/server-everything"},
		Env:           map[string]string{"NODE_OPTIONS": "--max-old-space-size=256"},
		ShutdownGrace: time.Second,
	})
	fmt.Println(dialer)

	conn, err := dialer.Dial(context.Background())
	if err != nil {
		fmt.Println(err) // e.g. npx is not installed
		return
	}
	defer conn.Close(context.Background())
	if c, ok := conn.(*stdio.Conn); ok {
		fmt.Println("pid", c.Pid())
	}
}
