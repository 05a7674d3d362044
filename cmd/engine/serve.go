package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/messages"
)

// exitCrash is the status of a server that "crashed" on purpose
// (--exit-after).
const exitCrash = 3

// httpShutdownTimeout bounds a graceful shutdown of the HTTP transports.
const httpShutdownTimeout = 5 * time.Second

// serveFlags are the command line of engine serve.
type serveFlags struct {
	o           demoserver.Options
	ho          demoserver.HTTPOptions
	logLevel    string
	transport   string
	listen      string
	allowRemote bool
	answerMode  string
	era         string
}

// httpOnlyFlags make sense only with an HTTP transport.
var httpOnlyFlags = []string{
	"listen", "allow-remote", "answer-mode", "sse-retry", "no-priming", "no-get-stream", "no-delete",
	"session-idle-timeout", "fail-nth", "fail-every", "fail-gets", "fail-status", "drop-stream-every",
	"drop-after-events", "drop-abort", "expire-after", "legacy-only", "legacy-probe-status", "endpoint-origin",
	"allowed-host", "allowed-origin", "max-connections", "body-timeout", "header-timeout",
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded demo MCP server (stdio, Streamable HTTP, HTTP+SSE, WebSocket)",
		Long: `Run the embedded demo MCP server. It is the default target of the client
commands and is meant for tests, demos and benchmarks.

Transports (--transport):
  stdio  JSON-RPC on stdin and stdout, logs on stderr only (the default).
  http   Streamable HTTP at /mcp.
  sse    the legacy HTTP+SSE transport (2024-11-05): GET /sse, POST /message.
  ws     WebSocket at /ws (subprotocol "mcp").
Every HTTP transport is served on the one --listen address whichever is
chosen; --transport picks the URL printed on stderr, as
"serving MCP over http at http://127.0.0.1:PORT/mcp", so that scripts can
use --listen 127.0.0.1:0 and read the port. Only loopback addresses are
accepted unless --allow-remote is given: the demo server has no
authentication. HTTP/1.1 and h2c (HTTP/2 with prior knowledge) are both
served. Requests that arrive on loopback must name a loopback host
(DNS-rebinding protection; --allowed-host adds names), a body must arrive
within --body-timeout, and at most --max-connections are served at once.

Tools: echo, add, sleep, progress, fail, large, sample, elicit, roots, log,
notify, touch. Resources demo://resource/1..N, templates, four prompts.

The fault flags make it misbehave on purpose: --delay (latency),
--exit-after (the process exits with status 3, like a crash),
--close-after (closes the connection but stays alive), --garbage-every
(invalid frames), --stderr-spam (stderr noise), --answer-version (a
protocol version the client does not speak). Over HTTP also: --fail-nth and
--fail-every (5xx answers), --fail-gets (5xx for GET streams),
--drop-stream-every (SSE answers cut before their response, to be resumed
with Last-Event-ID), --expire-after (404 for an expired session),
--no-get-stream (405), --legacy-only (a 2024-11-05 server at /mcp).

Over stdio it exits 0 when stdin reaches EOF; every transport exits 0 on
SIGINT/SIGTERM, after ending its sessions.`,
		Example: `  engine serve
  engine serve --delay 20ms --page-size 50
  engine ping --stdio "engine serve --exit-after 3"
  engine serve --transport http --listen 127.0.0.1:8080
  engine serve --transport http --listen 127.0.0.1:0 --drop-stream-every 2 --answer-mode sse
  engine serve --transport sse --legacy-only`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd.Flags()); err != nil {
				return err
			}
			if err := f.applyEra(cmd.Flags()); err != nil {
				return err
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
				return usagef("--log-level %q: use debug, info, warn or error", f.logLevel)
			}
			stderr := cmd.ErrOrStderr()
			f.o.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
			f.o.Stderr = stderr
			if f.transport == "stdio" {
				return serve(cmd, f.o)
			}
			return serveHTTP(cmd, &f)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

func (f *serveFlags) register(fl *pflag.FlagSet) {
	o, ho := &f.o, &f.ho
	fl.StringVar(&f.transport, "transport", "stdio", "stdio, http (Streamable HTTP), sse (legacy HTTP+SSE) or ws (WebSocket)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:0", "HTTP transports: host:port to listen on (port 0 picks a free one)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "HTTP transports: allow a --listen address that is not loopback")
	fl.StringSliceVar(&ho.AllowedHosts, "allowed-host", nil, "HTTP transports: a Host accepted besides loopback names (NAME or NAME:PORT; repeatable); any other gets 403 on loopback, and with this flag on every address")
	fl.StringSliceVar(&ho.AllowedOrigins, "allowed-origin", nil, "HTTP transports: an Origin accepted besides those naming an accepted host (repeatable)")
	fl.IntVar(&ho.MaxConnections, "max-connections", 0, "HTTP transports: connections served at once; more wait (default 8192; negative: no cap)")
	fl.DurationVar(&ho.BodyTimeout, "body-timeout", 0, "HTTP transports: time to read a request body before 408 and closing the connection (default 30s)")
	fl.DurationVar(&ho.ReadHeaderTimeout, "header-timeout", 0, "HTTP transports: time to read a request's headers, counted from accept for a new connection (default 10s; raise it above a load generator's idle-connection timeout)")

	fl.StringVar(&o.Name, "name", "", `serverInfo name (default "demoserver")`)
	fl.StringVar(&o.Version, "server-version", "", `serverInfo version (default "1.0.0")`)
	fl.StringVar(&o.Instructions, "instructions", "", "instructions sent in the initialize result")
	fl.StringSliceVar(&o.Versions, "versions", nil, "protocol versions to accept (default: those of --era)")
	fl.StringVar(&f.era, "era", "both", "protocol eras to serve: legacy (initialize, 2024-11-05 … 2025-11-25), modern (stateless 2026-07-28: server/discover, initialize refused with -32022) or both")
	fl.BoolVar(&o.RefuseInitialize, "refuse-initialize", false, "answer an initialize whose version is not accepted with -32022 and the accepted versions")
	fl.IntVar(&o.Resources, "resources", 0, "number of static resources demo://resource/1..N (default 100; negative for none)")
	fl.IntVar(&o.PageSize, "page-size", 0, "page size of every list method (default 10)")
	fl.DurationVar(&o.ClientRequestTimeout, "client-request-timeout", 0, "how long to wait for the client's answer to sampling, elicitation and roots requests (default 30s)")
	fl.StringVar(&f.logLevel, "log-level", "warn", "stderr log level: debug, info, warn, error")

	fl.DurationVar(&o.Delay, "delay", 0, "fault: delay before handling every request except initialize")
	fl.DurationVar(&o.StallAfter, "stall-after", 0, "fault: with --stall-for, how long after the first request the whole server stalls")
	fl.DurationVar(&o.StallFor, "stall-for", 0, "fault: stop handling requests for this long (once), e.g. 1s")
	fl.BoolVar(&o.BadOutput, "bad-output", false, "fault: echo's structuredContent does not match its outputSchema")
	fl.IntVar(&o.ExitAfter, "exit-after", 0, "fault: exit the process (status 3) when request N+1 of a session arrives")
	fl.IntVar(&o.CloseAfter, "close-after", 0, "fault: close the connection when request N+1 of a session arrives, staying alive")
	fl.IntVar(&o.GarbageEvery, "garbage-every", 0, "fault: write a garbage frame before every Nth response")
	fl.IntVar(&o.StderrSpam, "stderr-spam", 0, "fault: write this many bytes of noise to stderr per request")
	fl.StringVar(&o.AnswerVersion, "answer-version", "", `fault: answer this protocol version to every initialize (e.g. "1999-01-01")`)

	fl.StringVar(&f.answerMode, "answer-mode", "auto", "http: answer request POSTs with json, sse, or auto (SSE when the call may send messages first)")
	fl.DurationVar(&ho.SSERetry, "sse-retry", 0, "http: retry field of the priming events (default 100ms)")
	fl.BoolVar(&ho.NoPriming, "no-priming", false, "http: no priming event at the start of SSE streams (as before 2025-11-25)")
	fl.BoolVar(&ho.NoGetStream, "no-get-stream", false, "http: answer 405 to GET streams (resumption still works)")
	fl.BoolVar(&ho.NoDelete, "no-delete", false, "http: answer 405 to DELETE")
	fl.DurationVar(&ho.SessionIdleTimeout, "session-idle-timeout", 30*time.Minute, "HTTP transports: end sessions idle this long (0: never)")
	fl.IntVar(&ho.FailNth, "fail-nth", 0, "fault: answer the Nth request POST with --fail-status")
	fl.IntVar(&ho.FailEvery, "fail-every", 0, "fault: answer every Nth request POST with --fail-status")
	fl.IntVar(&ho.FailGets, "fail-gets", 0, "fault: answer the first N GET streams with --fail-status")
	fl.IntVar(&ho.FailStatus, "fail-status", 503, "fault: the HTTP status of --fail-nth, --fail-every and --fail-gets")
	fl.IntVar(&ho.DropStreamEvery, "drop-stream-every", 0, "fault: cut every Nth SSE answer before its response (resumable with Last-Event-ID)")
	fl.IntVar(&ho.DropAfterEvents, "drop-after-events", 1, "fault: events a cut SSE answer delivers first (1: the priming event)")
	fl.BoolVar(&ho.DropAbort, "drop-abort", false, "fault: abort the connection of a cut SSE answer instead of ending it cleanly")
	fl.IntVar(&ho.ExpireAfter, "expire-after", 0, "fault: expire a session (404) after N request POSTs")
	fl.BoolVar(&ho.LegacyOnly, "legacy-only", false, "http: behave like a 2024-11-05 server at /mcp (POST refused, GET opens an HTTP+SSE stream)")
	fl.IntVar(&ho.LegacyProbeStatus, "legacy-probe-status", 405, "http: the status of a POST to /mcp with --legacy-only")
	fl.StringVar(&ho.LegacyEndpointOrigin, "endpoint-origin", "", "test only: advertise the HTTP+SSE endpoint as an absolute URL on this origin")
}

// check validates the transport-related flags.
func (f *serveFlags) check(fl *pflag.FlagSet) error {
	switch f.transport {
	case "stdio":
		for _, name := range httpOnlyFlags {
			if fl.Changed(name) {
				return usagef("--%s needs --transport http, sse or ws", name)
			}
		}
		return nil
	case "http", "sse", "ws":
	default:
		return usagef("--transport %q: use stdio, http, sse or ws", f.transport)
	}
	mode, ok := demoserver.ParseAnswerMode(f.answerMode)
	if !ok {
		return usagef("--answer-mode %q: use auto, json or sse", f.answerMode)
	}
	f.ho.AnswerMode = mode
	if f.ho.FailStatus < 100 || f.ho.FailStatus > 599 {
		return usagef("--fail-status %d is not an HTTP status", f.ho.FailStatus)
	}
	if !f.allowRemote {
		if err := checkLoopback(f.listen, "the demo server has no authentication; pass --allow-remote to listen there anyway"); err != nil {
			return err
		}
	}
	return nil
}

// checkLoopback refuses a listen address that is not loopback (the demo
// server has no authentication and sends whatever its tools are asked
// for; the gateway without client tokens trusts its callers); remedy says
// what to do instead.
func checkLoopback(listen, remedy string) error {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return usagef("--listen %q: %v", listen, err)
	}
	if httpserve.IsLoopbackAddr(listen) {
		return nil
	}
	return usagef("--listen %q is not a loopback address: %s", listen, remedy)
}

// serve runs the demo server on the process's stdin and stdout.
func serve(cmd *cobra.Command, o demoserver.Options) error {
	ctx := cmd.Context()
	errc := make(chan error, 1)
	// Owner: serve. Exits when ServeStdio returns: stdin EOF, a fault, or
	// ctx ending (which closes stdin and stdout).
	go func() { errc <- demoserver.ServeStdio(ctx, o, os.Stdin, os.Stdout) }()

	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		// A signal. ServeStdio closes stdin, but a read from a terminal
		// may not return until the next input: give it a moment, then
		// exit regardless.
		select {
		case err = <-errc:
		case <-time.After(time.Second):
			return nil
		}
	}
	switch {
	case errors.Is(err, demoserver.ErrExitRequested):
		fmt.Fprintln(cmd.ErrOrStderr(), "engine serve: exiting on purpose (--exit-after)")
		os.Exit(exitCrash) // at once, like a crash
	case err == nil, ctx.Err() != nil, errors.Is(err, demoserver.ErrCloseRequested):
		return nil
	}
	return fmt.Errorf("serve: %w", err)
}

// serveHTTP runs the demo server's HTTP transports until a signal, or
// until a session trips --exit-after (the process then exits with status 3,
// like a crashed server).
func serveHTTP(cmd *cobra.Command, f *serveFlags) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	exitRequested := make(chan struct{}, 1)
	f.ho.SessionEnded = func(_ string, err error) {
		if errors.Is(err, demoserver.ErrExitRequested) {
			select {
			case exitRequested <- struct{}{}:
			default:
			}
		}
	}
	hs, err := demoserver.New(f.o).ListenHTTP(f.listen, f.ho)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	url := hs.StreamableURL()
	switch f.transport {
	case "sse":
		url = hs.SSEURL()
	case "ws":
		url = hs.WebSocketURL()
	}
	fmt.Fprintf(stderr, "serving MCP over %s at %s\n", f.transport, url)

	select {
	case <-ctx.Done():
	case <-exitRequested:
		fmt.Fprintln(stderr, "engine serve: exiting on purpose (--exit-after)")
		os.Exit(exitCrash) // at once, like a crash
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), httpShutdownTimeout)
	defer cancel()
	if err := hs.Close(sctx); err != nil {
		f.o.Logger.Warn("engine serve: shutdown", "err", err)
	}
	return nil
}

// applyEra turns --era into the accepted versions, unless --versions
// lists them.
func (f *serveFlags) applyEra(fl *pflag.FlagSet) error {
	var versions []string
	switch f.era {
	case "legacy":
		versions = messages.LegacyVersions
	case "modern":
		versions = messages.ModernVersions
	case "both":
		versions = messages.KnownVersions
	default:
		return usagef("--era %q: use legacy, modern or both", f.era)
	}
	if fl.Changed("versions") {
		if fl.Changed("era") {
			return usagef("--era and --versions exclude each other")
		}
		return nil
	}
	f.o.Versions = append([]string(nil), versions...)
	return nil
}
