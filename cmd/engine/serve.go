package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine/demoserver"
)

// exitCrash is the status of a server that "crashed" on purpose
// (--exit-after).
const exitCrash = 3

func newServeCmd() *cobra.Command {
	var (
		o        demoserver.Options
		logLevel string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded demo MCP server on stdin/stdout",
		Long: `Run the embedded demo MCP server over stdio: JSON-RPC on stdin and stdout,
logs on stderr only. It is the default target of the client commands and
is meant for tests, demos and benchmarks.

Tools: echo, add, sleep, progress, fail, large, sample, elicit, roots, log,
notify, touch. Resources demo://resource/1..N, templates, four prompts.

The fault flags make it misbehave on purpose: --delay (latency),
--exit-after (the process exits with status 3, like a crash),
--close-after (closes stdout but stays alive), --garbage-every (invalid
frames), --stderr-spam (stderr noise), --answer-version (a protocol
version the client does not speak).

It exits 0 when stdin reaches EOF or on SIGINT/SIGTERM.`,
		Example: `  engine serve
  engine serve --delay 20ms --page-size 50
  engine ping --stdio "engine serve --exit-after 3"`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return usagef("--log-level %q: use debug, info, warn or error", logLevel)
			}
			stderr := cmd.ErrOrStderr()
			o.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
			o.Stderr = stderr
			return serve(cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Name, "name", "", `serverInfo name (default "demoserver")`)
	fl.StringVar(&o.Version, "server-version", "", `serverInfo version (default "1.0.0")`)
	fl.StringVar(&o.Instructions, "instructions", "", "instructions sent in the initialize result")
	fl.StringSliceVar(&o.Versions, "versions", nil, "protocol versions to accept (default: all the engine knows)")
	fl.IntVar(&o.Resources, "resources", 0, "number of static resources demo://resource/1..N (default 100; negative for none)")
	fl.IntVar(&o.PageSize, "page-size", 0, "page size of every list method (default 10)")
	fl.DurationVar(&o.ClientRequestTimeout, "client-request-timeout", 0, "how long to wait for the client's answer to sampling, elicitation and roots requests (default 30s)")
	fl.StringVar(&logLevel, "log-level", "warn", "stderr log level: debug, info, warn, error")

	fl.DurationVar(&o.Delay, "delay", 0, "fault: delay before handling every request except initialize")
	fl.IntVar(&o.ExitAfter, "exit-after", 0, "fault: exit the process (status 3) when request N+1 arrives")
	fl.IntVar(&o.CloseAfter, "close-after", 0, "fault: close stdout when request N+1 arrives, staying alive")
	fl.IntVar(&o.GarbageEvery, "garbage-every", 0, "fault: write a garbage line before every Nth response")
	fl.IntVar(&o.StderrSpam, "stderr-spam", 0, "fault: write this many bytes of noise to stderr per request")
	fl.StringVar(&o.AnswerVersion, "answer-version", "", `fault: answer this protocol version to every initialize (e.g. "1999-01-01")`)
	return cmd
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
