package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
)

// newGatewayConformanceCmd runs the conformance suite's client scenarios
// through a gateway: the suite's scenario server is the gateway's one
// upstream server (no prefix, so the scenario's tool names stand), and the
// client steps of `engine conformance` run against the gateway's MCP
// endpoint. The suite then judges the gateway's upstream session (what
// its server sees), while the client's steps succeed only if the gateway
// forwarded everything, the scenario's elicitation included.
func newGatewayConformanceCmd() *cobra.Command {
	var (
		scenario string
		timeout  time.Duration
		verbose  bool
	)
	cmd := &cobra.Command{
		Use:    "conformance-client URL",
		Short:  "Run the conformance suite's client steps through an in-process gateway in front of URL",
		Hidden: true,
		Args:   exactArgs(1, "the scenario server's URL"),
		Example: `  node .../conformance/dist/index.js client --scenario tools_call \
    --command "exec bin/engine gateway conformance-client -v"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if scenario == "" {
				scenario = os.Getenv(scenarioEnv)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			g, err := gateway.New(ctx, gateway.Config{
				Servers: map[string]gateway.Server{"scenario": {Target: mcpengine.ServerConfig{URL: args[0]}, NoPrefix: true}},
				Engine: mcpengine.Config{
					ClientInfo: messages.Implementation{Name: "mcpengine-gateway", Version: version()},
					// As engine conformance: a refused handshake is a
					// failed scenario, not something to retry five times.
					RestartBudget: 1,
				},
				Logger: gatewayLogger(cmd.ErrOrStderr(), verbose),
			})
			if err != nil {
				return err
			}
			defer closeGateway(g)
			hs, err := g.Listen("127.0.0.1:0", gateway.ListenOptions{})
			if err != nil {
				return err
			}
			if err := g.WaitReady(ctx); err != nil {
				return fmt.Errorf("conformance %s: %w", scenario, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "gateway at %s in front of %s\n", hs.MCPURL(), args[0])
			return runConformance(ctx, cmd, hs.MCPURL(), scenario, verbose, telemetry.Providers{})
		},
	}
	cmd.Flags().StringVar(&scenario, "scenario", "", "scenario name (default: $"+scenarioEnv+")")
	cmd.Flags().DurationVar(&timeout, "timeout", 15*time.Second, "bound on the whole run")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log the gateway's and the engine's activity to stderr")
	return cmd
}
