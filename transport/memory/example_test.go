package memory_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

func ExampleNewPipe() {
	client, server := memory.NewPipe()
	_ = client.WriteFrames([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req, _ := server.ReadFrame()
	fmt.Println(string(req))

	_ = server.Close(context.Background())
	_, err := client.ReadFrame()
	fmt.Println(err == io.EOF)
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"ping"}
	// true
}

// An embedded server: serve answers every frame and returns when the client
// closes, which ends the goroutine the dialer started for it.
func ExampleNewDialer() {
	dialer := memory.NewDialer("echo", func(conn transport.Conn) {
		for {
			f, err := conn.ReadFrame()
			if err != nil {
				return // io.EOF: the client closed
			}
			if err := conn.WriteFrames(f); errors.Is(err, transport.ErrClosed) {
				return
			}
		}
	})
	conn, _ := dialer.Dial(context.Background())
	defer conn.Close(context.Background())
	_ = conn.WriteFrames([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
	reply, _ := conn.ReadFrame()
	fmt.Println(dialer, string(reply))
	// Output: memory:echo {"jsonrpc":"2.0","id":7,"result":{}}
}
