package demoserver_test

import (
	"context"
	"fmt"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// A server on one end of an in-process pipe, driven by hand.
func Example() {
	srv := demoserver.New(demoserver.Options{})
	client, server := memory.NewPipe()
	done := make(chan error, 1)
	// Owner: this example; exits when Serve returns, which it does once
	// the client closes its end (awaited below).
	go func() { done <- srv.Serve(context.Background(), server) }()

	send := func(id int64, method, params string) messages.Message {
		_ = client.WriteFrames(messages.AppendRequest(nil, messages.NumberID(id), method, messages.RawMessage(params)))
		frame, _ := client.ReadFrame()
		m, _ := messages.DecodeMessage(frame)
		return m
	}

	m := send(1, messages.MethodInitialize, `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"1"}}`)
	var init messages.InitializeResult
	_ = messages.Unmarshal(m.Result, &init)
	fmt.Println("version:", init.ProtocolVersion)
	_ = client.WriteFrames(messages.AppendNotification(nil, messages.NotificationInitialized, nil))

	m = send(2, messages.MethodToolsCall, `{"name":"echo","arguments":{"text":"hi"}}`)
	fmt.Println(string(m.Result))

	_ = client.Close(context.Background())
	fmt.Println("serve:", <-done)
	fmt.Println("requests:", srv.Stats().Requests)
	// Output:
	// version: 2025-06-18
	// {"content":[{"type":"text","text":"hi"}],"structuredContent":{"text":"hi"}}
	// serve: <nil>
	// requests: 2
}
