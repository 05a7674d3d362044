package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/telemetry/export"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// targetFlags select the server and shape the engine; every client
// command has them.
type targetFlags struct {
	stdio      string
	url        string
	headers    []string
	bearer     string
	transport  string
	configFile string
	server     string
	demoArgs   string

	timeout         time.Duration
	connectTimeout  time.Duration
	protocolVersion string
	strict          bool

	json    bool
	verbose bool

	otel         string
	otelArgs     bool
	telemetryOut *export.Pipeline // set by startTelemetry

	// features, set by call, read and prompt, answers server requests
	// (roots, elicitation) from the terminal (client_features.go).
	features *clientFeatures
}

const defaultCallTimeout = 30 * time.Second

func (f *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.stdio, "stdio", "", `server to start, as one command line: "command args..." (shell-style quoting, no shell)`)
	fs.StringVar(&f.url, "url", "", "remote server endpoint: http(s)://… (Streamable HTTP, falling back to HTTP+SSE) or ws(s)://… (WebSocket)")
	fs.StringArrayVar(&f.headers, "header", nil, `header for --url requests, "Name: value" (repeatable; $VAR is expanded)`)
	fs.StringVar(&f.bearer, "bearer", "", "bearer token for --url requests ($VAR is expanded; prefer a variable to keep it out of shell history)")
	fs.StringVar(&f.transport, "transport", "", "force the --url transport: http (Streamable HTTP with fallback), streamable-http, sse (2024-11-05 HTTP+SSE) or ws")
	fs.StringVar(&f.configFile, "config", "", "mcpServers JSON config file (Claude Desktop / Cursor / VS Code format)")
	fs.StringVar(&f.server, "server", "", "server name in --config (may be left out if the file has only one)")
	fs.StringVar(&f.demoArgs, "demo-args", "", `extra "engine serve" flags for the default demo server target, e.g. "--delay 5ms"`)
	fs.DurationVar(&f.timeout, "timeout", defaultCallTimeout, "timeout of each request")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", loadgen.DefaultConnectTimeout, "how long to wait for the server to start and complete the handshake")
	fs.StringVar(&f.protocolVersion, "protocol-version", "", "protocol version to speak, one of "+strings.Join(messages.KnownVersions, ", ")+" (default: negotiated per server, "+messages.LatestModernVersion+" first, falling back to initialize)")
	fs.BoolVar(&f.strict, "strict", false, "accept only the offered protocol version")
	fs.BoolVar(&f.json, "json", false, "print JSON instead of text")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log the engine's activity (and the server's stderr) to stderr")
	fs.StringVar(&f.otel, "otel", "", "OpenTelemetry traces and metrics: otlp (configured by the OTEL_EXPORTER_OTLP_* variables) or stdout (to stderr, for debugging)")
	fs.BoolVar(&f.otelArgs, "otel-record-arguments", false, "put tool arguments on spans (off: they may hold secrets)")
}

// startTelemetry starts the export --otel asks for (and Prometheus at
// prometheusAddr, if set) before the engine is built; stop flushes it and
// must run after the engine closed, so the last spans get out.
func (f *targetFlags) startTelemetry(cmd *cobra.Command, prometheusAddr string) (stop func(), err error) {
	if f.otel == "" && prometheusAddr == "" {
		return func() {}, nil
	}
	p, err := export.Start(cmd.Context(), export.Options{
		Mode:           f.otel,
		Writer:         cmd.ErrOrStderr(),
		PrometheusAddr: prometheusAddr,
		ServiceVersion: version(),
	})
	if err != nil {
		return nil, usagef("%v", err)
	}
	f.telemetryOut = p
	if f.verbose || prometheusAddr != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), p.String())
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "engine:", err)
		}
	}, nil
}

// commandLabel is a server's command line as a report shows it, each word
// quoted for a POSIX shell where it needs to be.
func commandLabel(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// target resolves the flags to the server to start and a label for it.
func (f *targetFlags) target() (mcpengine.ServerConfig, string, error) {
	given := 0
	for _, v := range []string{f.stdio, f.url, f.configFile} {
		if v != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return mcpengine.ServerConfig{}, "", usagef("--stdio, --url and --config are exclusive: give one")
	case (len(f.headers) > 0 || f.bearer != "" || f.transport != "") && f.url == "":
		return mcpengine.ServerConfig{}, "", usagef("--header, --bearer and --transport apply to --url only")
	case f.server != "" && f.configFile == "":
		return mcpengine.ServerConfig{}, "", usagef("--server needs --config")
	case f.demoArgs != "" && given > 0:
		return mcpengine.ServerConfig{}, "", usagef("--demo-args applies to the default demo server only, not with --stdio, --url or --config")
	}

	if f.url != "" {
		return f.urlTarget()
	}

	if f.stdio != "" {
		words, err := splitCommand(f.stdio)
		if err != nil {
			return mcpengine.ServerConfig{}, "", usagef("--stdio: %v", err)
		}
		if len(words) == 0 {
			return mcpengine.ServerConfig{}, "", usagef("--stdio: empty command")
		}
		// The label is the whole command line: "node" alone does not say
		// which server a report measured.
		return mcpengine.ServerConfig{Command: words[0], Args: words[1:]}, commandLabel(words), nil
	}

	if f.configFile != "" {
		cf, err := mcpengine.LoadConfigFile(f.configFile)
		if err != nil {
			return mcpengine.ServerConfig{}, "", err
		}
		name := f.server
		if name == "" {
			if len(cf.Servers) != 1 {
				names := make([]string, 0, len(cf.Servers))
				for n := range cf.Servers {
					names = append(names, n)
				}
				sort.Strings(names)
				return mcpengine.ServerConfig{}, "", usagef("%s has %d servers; pick one with --server (%s)", f.configFile, len(names), strings.Join(names, ", "))
			}
			for n := range cf.Servers {
				name = n
			}
		}
		sc, err := cf.Server(name)
		if err != nil {
			return mcpengine.ServerConfig{}, "", err
		}
		switch {
		case sc.Command != "":
			// The name says which server; its arguments stay out of
			// reports (a config file may put credentials there).
			return sc, fmt.Sprintf("%s (%s)", name, sc.Command), nil
		case sc.URL != "":
			return sc, fmt.Sprintf("%s (%s)", name, httpx.RedactURL(sc.URL)), nil
		}
		return mcpengine.ServerConfig{}, "", fmt.Errorf("server %q in %s has neither a command nor a url", name, f.configFile)
	}

	exe, err := os.Executable()
	if err != nil {
		return mcpengine.ServerConfig{}, "", fmt.Errorf("cannot locate this binary to start the demo server: %w", err)
	}
	args := []string{"serve"}
	if f.demoArgs != "" {
		extra, err := splitCommand(f.demoArgs)
		if err != nil {
			return mcpengine.ServerConfig{}, "", usagef("--demo-args: %v", err)
		}
		args = append(args, extra...)
	}
	label := "embedded demo server (engine serve)"
	if f.demoArgs != "" {
		label = fmt.Sprintf("embedded demo server (engine serve %s)", f.demoArgs)
	}
	return mcpengine.ServerConfig{Command: exe, Args: args}, label, nil
}

// telemetryOptions are what --otel-record-arguments asks of the spans.
func (f *targetFlags) telemetryOptions() telemetry.Options {
	return telemetry.Options{RecordArguments: f.otelArgs}
}

// engineConfig is the engine configuration the flags ask for.
func (f *targetFlags) engineConfig(stderr io.Writer) mcpengine.Config {
	cfg := mcpengine.Config{
		ClientInfo:      messages.Implementation{Name: "mcpengine-cli", Version: version()},
		ProtocolVersion: f.protocolVersion,
		StrictVersion:   f.strict,
		RequestTimeout:  f.timeout,
		// Tokens from `engine login` (or an earlier run's refresh); no
		// user agent: a server that needs an interactive login fails with
		// ErrUnauthorized and the hint to log in.
		OAuth: mcpengine.OAuthOptions{Store: oauth.NewFileStore(tokenDir())},
	}
	if f.telemetryOut != nil {
		cfg.Telemetry = f.telemetryOut.Providers
		cfg.TelemetryOptions = f.telemetryOptions()
	}
	if f.verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return cfg
}

// callOpts are the options of every request.
func (f *targetFlags) callOpts() []mcpengine.CallOption {
	if f.timeout > 0 {
		return []mcpengine.CallOption{mcpengine.WithTimeout(f.timeout)}
	}
	return nil
}

// client is one connected session and its engine.
type client struct {
	eng     *mcpengine.Engine
	stopTel func()
	s       *mcpengine.Session
	label   string
	connect time.Duration
	opts    []mcpengine.CallOption
}

// connect starts the engine and connects one session to the target,
// waiting at most --connect-timeout.
func (f *targetFlags) connect(cmd *cobra.Command) (*client, error) {
	if err := f.checkVersion(); err != nil {
		return nil, err
	}
	sc, label, err := f.target()
	if err != nil {
		return nil, err
	}
	stopTel, err := f.startTelemetry(cmd, "")
	if err != nil {
		return nil, err
	}
	cfg := f.engineConfig(cmd.ErrOrStderr())
	if f.features != nil {
		if err := f.features.apply(&cfg, os.Stdin, cmd.ErrOrStderr()); err != nil {
			stopTel()
			return nil, err
		}
	}
	eng := mcpengine.New(cfg)
	start := time.Now()
	s, err := loadgen.Connect(cmd.Context(), eng, mcpengine.SessionConfig{Name: "cli", Server: sc}, f.connectTimeout)
	if err != nil {
		closeEngine(eng)
		stopTel()
		var ce *loadgen.ConnectError
		if errors.As(err, &ce) {
			ce.Target = label
		}
		return nil, f.connectFailure(cmd, err, sc)
	}
	return &client{eng: eng, stopTel: stopTel, s: s, label: label, connect: time.Since(start), opts: f.callOpts()}, nil
}

// connectFailure adds a hint to a failed connect that the server's stderr
// may explain: only for a command (a URL server has no stderr here), and
// not for a server that could not start or be reached at all, nor for a
// version mismatch, which the error says in full. An authorization that
// needs the user gets the login command instead.
func (f *targetFlags) connectFailure(cmd *cobra.Command, err error, sc mcpengine.ServerConfig) error {
	switch {
	case errors.Is(err, oauth.ErrLoginRequired):
		// No stored token (or it can no longer be refreshed): only an
		// interactive login cures it.
		return fmt.Errorf("%w; sign in first: engine login %s", err, f.loginArgs())
	case errors.Is(err, mcpengine.ErrUnauthorized):
		return fmt.Errorf("%w; if the server needs you to sign in, run: engine login %s", err, f.loginArgs())
	}
	var ce *loadgen.ConnectError
	if errors.As(err, &ce) && !ce.Fatal && sc.Command != "" && !f.verbose && cmd.Context().Err() == nil &&
		!errors.Is(err, mcpengine.ErrVersionMismatch) && !errors.Is(err, mcpengine.ErrUnreachable) {
		return fmt.Errorf("%w; run with -v to see the server's stderr", err)
	}
	return err
}

// close shuts the session and the server down, then flushes telemetry.
func (c *client) close() {
	closeEngine(c.eng)
	c.stopTel()
}

func closeEngine(eng *mcpengine.Engine) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = eng.Close(ctx)
}

// loginArgs are the target flags to repeat after `engine login`.
func (f *targetFlags) loginArgs() string {
	if f.configFile != "" {
		if f.server != "" {
			return fmt.Sprintf("--config %s --server %s", f.configFile, f.server)
		}
		return "--config " + f.configFile
	}
	return "--url " + httpx.RedactURL(f.url)
}

// checkVersion refuses, as a usage error before anything starts, a
// --protocol-version the engine does not speak and a --strict without it.
func (f *targetFlags) checkVersion() error {
	if f.strict && f.protocolVersion == "" {
		return usagef("--strict needs --protocol-version")
	}
	if f.protocolVersion != "" && !messages.IsKnownVersion(f.protocolVersion) {
		return usagef("--protocol-version %q: use one of %s", f.protocolVersion, strings.Join(messages.KnownVersions, ", "))
	}
	return nil
}
