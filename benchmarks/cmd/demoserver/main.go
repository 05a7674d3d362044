// Command demoserver is the stdio MCP server every benchmark client talks
// to: demoserver.ServeStdio with default options (tools echo, add, ...).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpengine/mcpengine/demoserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demoserver.ServeStdio(ctx, demoserver.Options{}, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "demoserver:", err)
		os.Exit(1)
	}
}
