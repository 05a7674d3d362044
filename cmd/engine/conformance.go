package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
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

// conformanceScenario is what the client does for one scenario of the
// suite: connect (initialize and notifications/initialized, which every
// scenario needs), optionally list the tools, optionally call one.
type conformanceScenario struct {
	listTools bool
	tool      string // "" calls nothing
	args      map[string]any
}

// conformanceScenarios are the client scenarios this command knows
// (docs/CONFORMANCE.md says what the suite checks in each). Others get the
// generic behaviour: connect and list the tools.
var conformanceScenarios = map[string]conformanceScenario{
	"initialize": {},
	"tools_call": {listTools: true, tool: "add_numbers", args: map[string]any{"a": 5, "b": 3}},
	"elicitation-sep1034-client-defaults": {
		listTools: true, tool: "test_client_elicitation_defaults", args: map[string]any{},
	},
	// The tools/call answer arrives only after the engine resumed the
	// closed SSE stream with GET + Last-Event-ID, honouring retry: 500.
	"sse-retry": {listTools: true, tool: "test_reconnection", args: map[string]any{}},
}

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
tools, call the scenario's tool), closes the session and exits 0, or 1 when
any step failed. Scenarios with steps of their own:

  ` + strings.Join(knownScenarios(), "\n  ") + `

Any other scenario gets: connect, list the tools.

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

func knownScenarios() []string {
	names := make([]string, 0, len(conformanceScenarios))
	for n := range conformanceScenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func runConformance(ctx context.Context, cmd *cobra.Command, url, scenario string, verbose bool, tel telemetry.Providers) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	sc, known := conformanceScenarios[scenario]
	if !known && strings.HasPrefix(scenario, "auth/") {
		// The auth scenarios' servers guard their one tool: listing and
		// calling it is what needs a token (and, in scope-step-up, a
		// wider one for the call).
		sc, known = conformanceScenario{listTools: true, tool: "test-tool", args: map[string]any{}}, true
	}
	if !known {
		sc = conformanceScenario{listTools: true}
		fmt.Fprintf(errOut, "conformance: scenario %q has no specific steps here: connecting and listing tools\n", scenario)
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

	if sc.listTools {
		tools, err := s.ListTools(ctx)
		if err != nil {
			return fmt.Errorf("conformance %s: tools/list: %w", scenario, err)
		}
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		fmt.Fprintf(out, "tools: %s\n", strings.Join(names, ", "))
	}
	if sc.tool != "" {
		res, err := s.CallTool(ctx, sc.tool, sc.args)
		if err != nil {
			return fmt.Errorf("conformance %s: tools/call %s: %w", scenario, sc.tool, err)
		}
		fmt.Fprintf(out, "%s: %s\n", sc.tool, contentText(res.Content))
		if res.IsError {
			return fmt.Errorf("conformance %s: tool %s reported an error", scenario, sc.tool)
		}
	}
	return s.Close(ctx)
}
