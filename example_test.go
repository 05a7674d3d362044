package mcpengine_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// A session to an in-process demo server: connect, list tools, call one.
// A real server is reached the same way with SessionConfig.Server (a
// command and its arguments, as in an mcpServers config file).
func ExampleEngine_Connect() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := demoserver.New(demoserver.Options{})
	dialer := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) })

	eng := mcpengine.New(mcpengine.Config{})
	defer eng.Close(context.Background())

	s, err := eng.Connect(ctx, mcpengine.SessionConfig{Name: "demo", Dialer: dialer})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.ServerInfo().Name, s.ProtocolVersion())

	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "hello"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// demoserver 2026-07-28
	// hello
}

// A Future lets a caller start many requests and collect them later;
// Await gives the decoded result, as CallTool would.
func ExampleSession_CallToolAsync() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, done := exampleSession(ctx)
	defer done()

	futures := make([]*mcpengine.Future[*messages.CallToolResult], 3)
	for i := range futures {
		futures[i] = s.CallToolAsync(ctx, "add", map[string]any{"a": i, "b": 10})
	}
	for _, f := range futures {
		res, err := f.Await(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Content[0].Text)
	}
	// Output:
	// 10
	// 11
	// 12
}

// Progress notifications reach the call that asked for them, in order.
func ExampleWithProgress() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, done := exampleSession(ctx)
	defer done()

	steps := make(chan float64, 3)
	_, err := s.CallTool(ctx, "progress", map[string]any{"steps": 3, "intervalMs": 1},
		mcpengine.WithProgress(func(p messages.ProgressParams) { steps <- p.Progress }))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 3; i++ {
		fmt.Println("progress", <-steps)
	}
	// Output:
	// progress 1
	// progress 2
	// progress 3
}

// Tools iterates over every tool, requesting pages as the loop reaches
// them; breaking out early requests no further page.
func ExampleSession_Tools() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, done := exampleSession(ctx)
	defer done()

	for tool, err := range s.Tools(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if tool.Name == "add" {
			fmt.Println("found", tool.Name)
			break
		}
	}
	// Output:
	// found add
}

// WithMeta adds members to the request's params._meta; the server sees
// them beside what the engine puts there (here the progress token).
func ExampleWithMeta() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := demoserver.New(demoserver.Options{})
	seen := make(chan map[string]any, 1)
	// The server's side of the pipe, wrapped to show what a tools/call
	// carried in params._meta.
	dialer := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, metaSpy{c, seen}) })
	eng := mcpengine.New(mcpengine.Config{})
	defer eng.Close(context.Background())
	s, err := eng.Connect(ctx, mcpengine.SessionConfig{Name: "demo", Dialer: dialer})
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "hi"},
		mcpengine.WithMeta(map[string]any{"com.example/requestId": "r-42"}),
		mcpengine.WithProgress(func(messages.ProgressParams) {}))
	if err != nil {
		fmt.Println(err)
		return
	}
	meta := <-seen
	fmt.Println(meta["com.example/requestId"], meta["progressToken"] != nil)
	// Output:
	// r-42 true
}

// metaSpy passes frames through and sends the params._meta of each
// tools/call it reads to seen.
type metaSpy struct {
	transport.Conn
	seen chan<- map[string]any
}

func (c metaSpy) ReadFrame() ([]byte, error) {
	frame, err := c.Conn.ReadFrame()
	var req struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if err == nil && messages.Unmarshal(frame, &req) == nil && req.Method == messages.MethodToolsCall {
		c.seen <- req.Params.Meta
	}
	return frame, err
}

// Example_readme is the README's example, kept compiling here (it needs
// npx, so it has no Output and is not run).
func Example_readme() {
	ctx := context.Background()
	onProgress := func(p messages.ProgressParams) { fmt.Println("progress", p.Progress) }

	eng := mcpengine.New(mcpengine.Config{})
	defer eng.Close(ctx)

	s, err := eng.Connect(ctx, mcpengine.SessionConfig{
		Name:   "files",
		Server: mcpengine.ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}},
	})
	if err != nil {
		return
	}
	tools, err := s.ListTools(ctx) // all pages
	fmt.Println(len(tools), err)
	for tool, err := range s.Tools(ctx) { // pages fetched as the loop goes
		fmt.Println(tool.Name, err)
	}
	res, err := s.CallTool(ctx, "read_file", map[string]any{"path": "/tmp/x"},
		mcpengine.WithTimeout(5*time.Second),
		mcpengine.WithMeta(map[string]any{"com.example/requestId": "r-42"})) // into params._meta
	fmt.Println(res, err)
	f := s.CallToolAsync(ctx, "slow", nil, mcpengine.WithProgress(onProgress),
		mcpengine.WithHeader("X-Request-Id", "r-43")) // this request's POST only
	res, err = f.Await(ctx) // *messages.CallToolResult
	fmt.Println(res, err)
	fmt.Printf("%+v\n", s.Stats()) // a plain snapshot
}

// exampleSession is ExampleEngine_Connect's setup: a session to an
// in-process demo server, and the function that closes both.
func exampleSession(ctx context.Context) (*mcpengine.Session, func()) {
	srv := demoserver.New(demoserver.Options{})
	eng := mcpengine.New(mcpengine.Config{})
	s, err := eng.Connect(ctx, mcpengine.SessionConfig{
		Name:   "demo",
		Dialer: memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) }),
	})
	if err != nil {
		panic(err)
	}
	return s, func() { _ = eng.Close(context.Background()) }
}
