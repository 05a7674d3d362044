package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
)

// gatewayShutdownTimeout bounds the gateway's shutdown: client sessions,
// listeners, upstream sessions (stdio servers get SIGTERM, then SIGKILL).
const gatewayShutdownTimeout = 10 * time.Second

type gatewayFlags struct {
	config      string
	listen      string
	allowRemote bool
	allowHosts  []string
	maxConns    int
	audit       string
	auditArgs   bool
	wait        time.Duration
	verbose     bool
	otel        string
	otelArgs    bool
	// cluster: with --join (or another provider) the gateway is a
	// cluster member and its pool slots are cluster sessions.
	cluster clusterFlags
}

func newGatewayCmd() *cobra.Command {
	var f gatewayFlags
	cmd := &cobra.Command{
		Use:   "gateway --config FILE",
		Short: "Serve one MCP endpoint in front of many MCP servers, with policy",
		Long: `Serve one HTTP endpoint in front of every server of an mcpServers file.

The gateway holds a pool of supervised sessions per server (stdio servers
are started, remote ones connected; both are restarted or reconnected when
they fail) and serves:

  /mcp      a standard MCP Streamable HTTP endpoint aggregating every
            server: tools and prompts as SERVER__NAME (the prefix is
            configurable), resources with their own URIs; list changes,
            progress, cancellation, and the servers' sampling, elicitation
            and roots requests are forwarded. Streams are resumable
            (Last-Event-ID); clients of 2026-07-28 and of the handshake
            era are served.
  /sse      the same for legacy HTTP+SSE clients (2024-11-05), which POST
            to /message.
  /rpc      the routing protocol: POST one JSON-RPC message with a
            "server_id" member; the server's answer is passed through.
  /healthz  every upstream session's state (200 when every server is up).
  /metrics  Prometheus metrics.

With --listen-cluster (and --join, or another --provider) the gateway is a
member of an engine cluster (docs/CLUSTER.md) and each pool slot is a
cluster session named SERVER/pool-N on every gateway: gateways behind one
load balancer share one set of upstream sessions, each owned by one member.

The optional "gateway" section of the file sets pools, prefixes, per-server
and per-client policies (allow/deny globs for tools, resource URIs and
prompts, maxResourceBytes, maxToolTime, rateLimit), client bearer tokens and
the audit log; docs/GATEWAY.md describes it. Without client tokens only
loopback clients are let in; a non-loopback --listen needs --allow-remote
and client tokens. Requests that arrive on loopback must name a loopback
host (DNS-rebinding protection; --allowed-host adds names); bodies must
arrive within "bodyTimeout" (30s); requests refused for their token get
401 before their body is read. HTTP/1.1 and h2c (HTTP/2 with prior
knowledge) are both served.

It prints "gateway listening at http://HOST:PORT" on stderr (so scripts can
use --listen 127.0.0.1:0) and runs until SIGINT or SIGTERM.`,
		Example: `  engine gateway --config mcp.json --listen 127.0.0.1:8080
  engine gateway --config mcp.json --audit audit.jsonl
  curl -s localhost:8080/rpc -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","server_id":"files"}'
  engine list tools --url http://127.0.0.1:8080/mcp
  engine gateway --config mcp.json --listen 127.0.0.1:8080 --listen-cluster 10.0.0.1:7700 --join 10.0.0.1:7700,10.0.0.2:7700`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runGateway(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "mcpServers JSON file, with an optional \"gateway\" section (required)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:0", "host:port to listen on (port 0 picks a free one)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a --listen address that is not loopback (client tokens are required then)")
	fl.StringSliceVar(&f.allowHosts, "allowed-host", nil, `a Host accepted besides loopback names (NAME or NAME:PORT; repeatable), added to the config's "allowedHosts"; with any, every request's Host is checked`)
	fl.IntVar(&f.maxConns, "max-connections", 0, `connections served at once; more wait (default: the config's "maxConnections", else 8192; negative: no cap)`)
	fl.StringVar(&f.audit, "audit", "", `audit log file (JSON lines, appended; "-" for stderr), instead of the config's`)
	fl.BoolVar(&f.auditArgs, "audit-arguments", false, "record tool arguments in the audit log (off: they may hold secrets)")
	fl.DurationVar(&f.wait, "wait", 30*time.Second, "how long to wait for every server to be ready before reporting which are not (serving starts at once)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log the gateway's and the engine's activity to stderr")
	fl.StringVar(&f.otel, "otel", "", "OpenTelemetry for the upstream sessions: otlp (OTEL_EXPORTER_OTLP_* variables) or stdout; their metrics then go there instead of /metrics")
	fl.BoolVar(&f.otelArgs, "otel-record-arguments", false, "put tool arguments on spans (off: they may hold secrets)")
	f.cluster.register(fl, "listen-cluster", "join an engine cluster: HOST:PORT other members reach this one at (with --join, or --provider); gateways of one cluster share their upstream sessions")
	cmd.AddCommand(newGatewayConformanceCmd())
	return cmd
}

func runGateway(cmd *cobra.Command, f *gatewayFlags) error {
	if f.config == "" {
		return usagef("engine gateway needs --config FILE")
	}
	if !f.allowRemote {
		if err := checkLoopback(f.listen, "pass --allow-remote (and configure client tokens) to listen there"); err != nil {
			return err
		}
	}
	cfg, err := gateway.LoadConfig(f.config)
	if err != nil {
		return err
	}
	if f.audit != "" {
		cfg.Audit.File = f.audit
	}
	if f.auditArgs {
		cfg.Audit.Arguments = true
	}
	cfg.AllowedHosts = append(cfg.AllowedHosts, f.allowHosts...)
	if f.maxConns != 0 {
		cfg.MaxConnections = f.maxConns
	}
	stderr := cmd.ErrOrStderr()
	cfg.Logger = gatewayLogger(stderr, f.verbose)
	cfg.Engine.ClientInfo = messages.Implementation{Name: "mcpengine-gateway", Version: version()}
	// Upstreams configured with "auth": {"oauth": ...} use the tokens of
	// `engine login` or, with a client_credentials grant, their own; a
	// gateway has no browser to send anyone to.
	cfg.Engine.OAuth.Store = oauth.NewFileStore(tokenDir())
	// Flushed after the gateway (and its sessions) closed: deferred first.
	tf := &targetFlags{otel: f.otel, otelArgs: f.otelArgs, verbose: f.verbose}
	stopTel, err := tf.startTelemetry(cmd, "")
	if err != nil {
		return err
	}
	defer stopTel()
	if tf.telemetryOut != nil {
		cfg.Engine.Telemetry = tf.telemetryOut.Providers
		cfg.Engine.TelemetryOptions = tf.telemetryOptions()
	}

	if f.cluster.listen != "" {
		cc, err := f.cluster.membership(cfg.Logger, f.verbose)
		if err != nil {
			return err
		}
		cfg.Cluster = &cc
	} else if f.cluster.join != "" {
		return usagef("--join needs --listen-cluster")
	}
	cfg.Version = version()
	g, err := gateway.New(cmd.Context(), *cfg)
	if err != nil {
		return err
	}
	defer closeGateway(g)
	hs, err := g.Listen(f.listen, gateway.ListenOptions{AllowRemote: f.allowRemote})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "gateway listening at %s (MCP %s, routing %s, health %s, metrics %s)\n",
		hs.URL, gateway.PathMCP, gateway.PathRoute, gateway.PathHealth, gateway.PathMetrics)

	wctx, cancel := context.WithTimeout(cmd.Context(), f.wait)
	err = g.WaitReady(wctx)
	cancel()
	printHealth(stderr, g.Health())
	if err != nil && cmd.Context().Err() == nil {
		fmt.Fprintf(stderr, "gateway: not every server is ready after %s; serving anyway and retrying them\n", f.wait)
	}
	<-cmd.Context().Done()
	fmt.Fprintln(stderr, "gateway: shutting down")
	return nil
}

// gatewayLogger logs warnings (debug with -v) as text to stderr.
func gatewayLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

func closeGateway(g *gateway.Gateway) {
	ctx, cancel := context.WithTimeout(context.Background(), gatewayShutdownTimeout)
	defer cancel()
	_ = g.Close(ctx)
}

// printHealth writes one line per server: ready sessions out of the pool.
func printHealth(w io.Writer, h gateway.Health) {
	names := make([]string, 0, len(h.Servers))
	for n := range h.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := h.Servers[n]
		states := make([]string, len(s.Sessions))
		for i, ss := range s.Sessions {
			states[i] = ss.State
			if ss.LastError != "" && ss.State != "ready" {
				states[i] += " (" + ss.LastError + ")"
			}
		}
		fmt.Fprintf(w, "  %s: %d/%d ready [%s]\n", n, s.Ready, s.Pool, strings.Join(states, ", "))
	}
}
