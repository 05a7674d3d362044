package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// workerKinds are the virtual actor kinds `engine worker` offers beside
// the session kind. A feature adds its own from an init function in its
// file: workerKinds = append(workerKinds, func() *protocluster.Kind {…}).
var workerKinds []func() *protocluster.Kind

// workerLeaveTimeout bounds a worker's graceful leave after SIGINT/SIGTERM.
const workerLeaveTimeout = 30 * time.Second

type workerFlags struct {
	clusterFlags
	config   string
	http     string
	allowRem bool
	verbose  bool
	forward  bool

	otel       string
	otelArgs   bool
	prometheus string
}

func newWorkerCmd() *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:   "worker --listen HOST:PORT --join HOST:PORT[,HOST:PORT...]",
		Short: "Run a cluster member that holds sessions and runs distributed work",
		Long: `Run a member of an engine cluster (Proto.Actor cluster, docs/CLUSTER.md).

Members find each other through a cluster provider. The default,
automanaged, polls a static list of hosts: --listen is the HTTP health
endpoint other members poll (it binds exactly HOST:PORT), --join lists
every member's --listen address (this one may be included), and the
actor remote, which carries the messages between members, listens on
HOST:--remote-port (0: a free port, which the health endpoint tells).
With --provider consul, etcd or k8s, --listen is the actor remote's own
address, which the provider registers, and --join is not used.

The member holds the named sessions the cluster places on it, opened
against the servers of --config (an mcpServers file, the same on every
member). It runs until SIGINT or SIGTERM, then leaves gracefully: its
sessions move to the other members.`,
		Example: `  engine worker --listen 10.0.0.1:7700 --join 10.0.0.1:7700,10.0.0.2:7700,10.0.0.3:7700 --config servers.json
  engine worker --provider consul --consul-address 10.0.0.9:8500 --listen 10.0.0.1:7701 --config servers.json
  engine worker --provider k8s --listen $(POD_IP):7701 --config /etc/engine/servers.json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd, &f) },
	}
	fl := cmd.Flags()
	f.register(fl, "listen", "HOST:PORT other members reach this one at (required)")
	fl.StringVar(&f.config, "config", "", "mcpServers JSON file of the servers sessions are opened against")
	fl.StringVar(&f.http, "http", "", "serve /healthz, /sessions and /call on HOST:PORT (no authentication: loopback only unless --allow-remote)")
	fl.BoolVar(&f.allowRem, "allow-remote", false, "allow an --http address that is not loopback")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log protoactor's info lines too")
	fl.BoolVar(&f.forward, "forward-server-requests", false, "declare sampling, elicitation and roots on the sessions this worker owns and send those requests on to the calling member (for sessions that gateways, which answer them, call); without it the sessions declare none")
	fl.StringVar(&f.otel, "otel", "", "OpenTelemetry traces and metrics of the member and its sessions: otlp (configured by the OTEL_EXPORTER_OTLP_* variables) or stdout (to stderr, for debugging)")
	fl.BoolVar(&f.otelArgs, "otel-record-arguments", false, "put tool arguments on spans (off: they may hold secrets)")
	fl.StringVar(&f.prometheus, "prometheus", "", "serve the member's metrics (mcpengine.cluster.*, and its sessions' mcp.client.*) at ADDR/metrics, e.g. 127.0.0.1:9464 (loopback only)")
	_ = cmd.MarkFlagRequired("listen")
	return cmd
}

func (f *workerFlags) clusterConfig(log *slog.Logger) (cluster.Config, error) {
	cfg, err := f.membership(log, f.verbose)
	if err != nil {
		return cfg, err
	}
	if f.config != "" {
		cf, err := mcpengine.LoadConfigFile(f.config)
		if err != nil {
			return cfg, usagef("--config: %v", err)
		}
		cfg.Servers = cf.Servers
	}
	for _, k := range workerKinds {
		cfg.Kinds = append(cfg.Kinds, k())
	}
	cfg.ForwardServerRequests = f.forward
	return cfg, nil
}

func runWorker(cmd *cobra.Command, f *workerFlags) error {
	stderr := cmd.ErrOrStderr()
	log := workerLogger(stderr)
	cfg, err := f.clusterConfig(log)
	if err != nil {
		return err
	}
	// Flushed after the member (and its sessions) closed: deferred first.
	tf := &targetFlags{otel: f.otel, otelArgs: f.otelArgs, verbose: f.verbose}
	stopTel, err := tf.startTelemetry(cmd, f.prometheus)
	if err != nil {
		return err
	}
	defer stopTel()
	if tf.telemetryOut != nil {
		cfg.Engine.Telemetry = tf.telemetryOut.Providers
		cfg.Engine.TelemetryOptions = tf.telemetryOptions()
	}
	if f.http != "" && !f.allowRem && !httpserve.IsLoopbackAddr(f.http) {
		return usagef("--http %s is not a loopback address: the endpoint has no authentication (--allow-remote to serve it anyway)", f.http)
	}
	var ln net.Listener
	if f.http != "" {
		if ln, err = net.Listen("tcp", f.http); err != nil {
			return fmt.Errorf("--http: %w", err)
		}
	}
	m, err := cluster.Start(cmd.Context(), cfg)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	stopLoad, err := startLoadWorker(m, stderr, log)
	if err != nil {
		_ = m.Close(context.Background())
		return err
	}
	fmt.Fprintf(stderr, "worker: member %s of cluster %q, membership at %s, remote at %s\n",
		m.ID(), cfg.Name, m.MembershipAddr(), m.Address())
	var srv *httpserve.Server
	if ln != nil {
		srv = httpserve.Serve(ln, &http.Server{Handler: workerHandler(m), ReadHeaderTimeout: 10 * time.Second})
		fmt.Fprintf(stderr, "worker: serving /healthz at http://%s/healthz\n", ln.Addr())
	}
	<-cmd.Context().Done()
	fmt.Fprintln(stderr, "worker: leaving the cluster")
	stopLoad()
	ctx, cancel := context.WithTimeout(context.Background(), workerLeaveTimeout)
	defer cancel()
	if srv != nil {
		_ = srv.Close(ctx)
	}
	return m.Close(ctx)
}

// workerLogger logs the member's own events (members joined and left,
// sessions it holds) as text to stderr.
func workerLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
