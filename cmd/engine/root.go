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
	// `engine completion bash|zsh|fish|powershell` prints the script.
	root.CompletionOptions.HiddenDefaultCmd = false
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
		newWorkerCmd(),
	)
	return root
}

// buildVersion is set by `make build` (-ldflags -X) from git describe,
// for builds where Go records no version control information
// (GOFLAGS=-buildvcs=false).
var buildVersion string

// version is the module version the binary was built from: the tagged or
// pseudo-version `go install` and `go build` record, else the commit the
// work tree was at ("dev+1a2b3c4d5e6f", "-dirty" with uncommitted
// changes), else "dev".
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	return "dev+" + rev[:min(len(rev), 12)] + dirty
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
