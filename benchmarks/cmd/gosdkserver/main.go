// Command gosdkserver is an official Go SDK (v1.8.0) MCP server over
// stdio, in one of the interop modes (see internal/interop), for the
// engine's interoperability tests.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpengine/mcpengine/benchmarks/internal/interop"
)

func main() {
	mode := flag.String("mode", interop.ModeAll, "all-versions, 2026-07-28-only, legacy-only or refuses-initialize")
	flag.Parse()
	s, err := interop.NewServer(*mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
