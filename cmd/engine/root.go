package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "engine",
		Short: "Talk to and load-test Model Context Protocol (MCP) servers",
		Long: `engine is the mcpengine command line.

It connects to an MCP server and lists its tools, resources and prompts,
calls tools, reads resources, renders prompts, pings it, or load-tests it.
The server is given with --stdio "command args..." or --config FILE
--server NAME (an mcpServers JSON file, as used by Claude Desktop, Cursor
and VS Code). Without either, the embedded demo server is used: this same
binary started as "engine serve".`,
		Example: `  engine list tools
  engine call echo --args '{"text":"hi"}'
  engine call add --arg a=1 --arg b=2
  engine read demo://resource/1
  engine prompt greet --arg name=Ada
  engine ping --stdio "npx -y @modelcontextprotocol/server-everything"
  engine list tools --config ~/.cursor/mcp.json --server files
  engine load -s 4 -c 8 -z 10s`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		newListCmd(),
		newCallCmd(),
		newReadCmd(),
		newPromptCmd(),
		newPingCmd(),
		newLoadCmd(),
		newServeCmd(),
		newConformanceCmd(),
		newGatewayCmd(),
		newLoginCmd(),
		newLogoutCmd(),
	)
	return root
}

// version is the module version the binary was built from ("dev" for a
// build from a work tree).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// exactArgs is cobra.ExactArgs with a usage error and a clearer message.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s needs %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
