// Command embedding is the smallest program that embeds the engine: it
// starts the demo server (`engine serve`) as a stdio subprocess, lists its
// tools, calls one, and closes everything before it exits.
//
//	make build && go run ./examples/embedding -server "bin/engine serve"
//
// Any stdio MCP server works the same way, e.g.
//
//	go run ./examples/embedding -server "npx -y @modelcontextprotocol/server-everything" -tool echo -args '{"message":"hi"}'
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine"
)

func main() {
	server := flag.String("server", "engine serve", "the server's command line (words split on spaces)")
	tool := flag.String("tool", "echo", "the tool to call")
	args := flag.String("args", `{"text":"hello from an embedding program"}`, "the tool's arguments, a JSON object")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout, strings.Fields(*server), *tool, *args); err != nil {
		fmt.Fprintln(os.Stderr, "embedding:", err)
		os.Exit(1)
	}
}

// run connects to the server that command starts, prints its tools and
// the result of calling tool with argsJSON.
func run(ctx context.Context, out io.Writer, command []string, tool, argsJSON string) (err error) {
	if len(command) == 0 {
		return errors.New("no server command")
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		return fmt.Errorf("-args: %w", err)
	}

	eng := mcpengine.New(mcpengine.Config{})
	// Close stops every session and server process; it returns by its
	// ctx's deadline whatever the servers do.
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = errors.Join(err, eng.Close(closeCtx))
	}()

	s, err := eng.Connect(ctx, mcpengine.SessionConfig{
		Name:   "demo",
		Server: mcpengine.ServerConfig{Command: command[0], Args: command[1:]},
	})
	if err != nil {
		return err // typed: errors.Is(err, mcpengine.ErrUnreachable), ...
	}
	tools, err := s.ListTools(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d tools:", len(tools))
	for _, t := range tools {
		fmt.Fprintf(out, " %s", t.Name)
	}
	fmt.Fprintln(out)

	res, err := s.CallTool(ctx, tool, args, mcpengine.WithTimeout(5*time.Second))
	if err != nil {
		return err
	}
	for _, c := range res.Content {
		fmt.Fprintln(out, c.Text)
	}
	if res.IsError {
		return fmt.Errorf("tool %s returned an error", tool)
	}
	return nil
}
