package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/telemetry"
)

// scenarioEnv is where the official conformance suite names the scenario
// it is running (scripts/conformance.sh, docs/CONFORMANCE.md).
const scenarioEnv = "MCP_CONFORMANCE_SCENARIO"

func newConformanceCmd() *cobra.Command {
	var (
		scenario string
		timeout  time.Duration
		verbose  bool
		otel     string
	)
	cmd := &cobra.Command{
		Use:   "conformance URL",
		Short: "Act as the client of the official MCP conformance suite",
		Long: `Act as the client under test of the official MCP conformance suite
(@modelcontextprotocol/conformance), which starts a test server per scenario
and runs this command with the server's URL as the last argument and the
scenario's name in ` + scenarioEnv + `.

The command connects to URL, answers elicitation requests by accepting the
requested schema's default values, does what the scenario expects (list the
tools, call the scenario's tools, read, get prompts, list and load skills),
closes the session and exits 0, or 1 when any step failed. Scenarios with
steps of their own:

  ` + strings.Join(knownScenarios(), "\n  ") + `
  auth/*: list the tools, call test-tool

Any other scenario gets: connect, list what the server offers (tools,
resources, prompts; what it does not declare is skipped).

Run the suite with make conformance (scripts/conformance.sh).`,
		Example: `  ` + scenarioEnv + `=tools_call engine conformance http://localhost:3001/mcp
  engine conformance --scenario initialize -v http://localhost:3001/mcp`,
		Args: exactArgs(1, "the scenario server's URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if scenario == "" {
				scenario = os.Getenv(scenarioEnv)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			tf := &targetFlags{otel: otel}
			stop, err := tf.startTelemetry(cmd, "")
			if err != nil {
				return err
			}
			defer stop()
			var tel telemetry.Providers
			if tf.telemetryOut != nil {
				tel = tf.telemetryOut.Providers
			}
			return runConformance(ctx, cmd, args[0], scenario, verbose, tel)
		},
	}
	cmd.Flags().StringVar(&scenario, "scenario", "", "scenario name (default: $"+scenarioEnv+")")
	cmd.Flags().DurationVar(&timeout, "timeout", 15*time.Second, "bound on the whole run (connect, calls, close)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log the engine's activity to stderr")
	cmd.Flags().StringVar(&otel, "otel", "", "OpenTelemetry: otlp (OTEL_EXPORTER_OTLP_* variables) or stdout")
	return cmd
}

func runConformance(ctx context.Context, cmd *cobra.Command, url, scenario string, verbose bool, tel telemetry.Providers) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	steps, known := scenarioSteps(scenario)
	if !known {
		fmt.Fprintf(errOut, "conformance: scenario %q has no specific steps here: connecting and listing what the server offers\n", scenario)
	}

	cfg := mcpengine.Config{
		ClientInfo:  messages.Implementation{Name: "mcpengine-conformance", Version: version()},
		Elicitation: acceptElicitationDefaults,
		// A refused handshake or a version mismatch from a test server is a
		// failed scenario: give up after one retry rather than five.
		RestartBudget: 1,
		Telemetry:     tel,
	}
	if verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	auth, err := conformanceAuth(scenario)
	if err != nil {
		return err
	}
	if auth != nil {
		cfg.OAuth = mcpengine.OAuthOptions{UserAgent: oauth.NewRedirectAgent(nil, conformanceRedirectURI)}
	}
	eng := mcpengine.New(cfg)
	defer closeEngine(eng)

	s, err := eng.Connect(ctx, mcpengine.SessionConfig{Name: "conformance", Server: mcpengine.ServerConfig{URL: url, Auth: auth}})
	if err != nil {
		return fmt.Errorf("conformance %s: connect: %w", scenario, err)
	}
	fmt.Fprintf(out, "connected: %s %s, protocol %s\n", s.ServerInfo().Name, s.ServerInfo().Version, s.ProtocolVersion())

	run := &conformanceRun{s: s, out: out, scenario: scenario}
	for _, step := range steps {
		if err := step(ctx, run); err != nil {
			return fmt.Errorf("conformance %s: %w", scenario, err)
		}
	}
	return s.Close(ctx)
}
