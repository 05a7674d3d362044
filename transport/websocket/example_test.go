package websocket_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	cws "github.com/coder/websocket"

	"github.com/mcpengine/mcpengine/transport/websocket"
)

// A WebSocket MCP server agrees to the "mcp" subprotocol and exchanges one
// JSON-RPC message per text message. This one answers a single ping.
func ExampleDialer() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := cws.Accept(w, r, &cws.AcceptOptions{Subprotocols: []string{"mcp"}})
		if err != nil {
			return
		}
		defer c.CloseNow()
		if _, _, err := c.Read(r.Context()); err != nil {
			return
		}
		_ = c.Write(r.Context(), cws.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		_, _, _ = c.Read(r.Context()) // until the client closes
	}))
	defer srv.Close()

	d := websocket.Dialer{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp?token=secret"}
	conn, err := d.Dial(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close(context.Background())

	_ = conn.WriteFrames([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	reply, _ := conn.ReadFrame()
	fmt.Println(strings.HasSuffix(d.String(), "/mcp"), string(reply))
	// Output: true {"jsonrpc":"2.0","id":1,"result":{}}
}
