package demoserver

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// Options configure a Server. The zero value is a well-behaved server with
// the defaults noted; the fault fields (AnswerVersion, Delay, ExitAfter,
// CloseAfter, GarbageEvery, StderrSpam) make it misbehave on purpose.
type Options struct {
	// Name and Version are the serverInfo (defaults "demoserver", "1.0.0").
	Name, Version string
	// Instructions are sent in the initialize result (a default text if
	// empty).
	Instructions string

	// Versions lists the protocol versions the server accepts (default
	// messages.KnownVersions: both eras, so that a client that probes with
	// server/discover gets 2026-07-28). Its eras follow: legacy
	// versions only (initialize), modern ones only (server/discover and
	// requests carrying their _meta; initialize is refused with -32022),
	// or both. initialize is answered with the client's requested version
	// if listed, else the newest listed legacy version (or -32022 with
	// RefuseInitialize).
	Versions []string
	// RefuseInitialize answers an initialize whose version is not listed
	// with -32022 and the listed versions, as a server of the stateless
	// era does, instead of with another version.
	RefuseInitialize bool
	// AnswerVersion, if set, is answered to every initialize whatever was
	// asked (fault: e.g. "1999-01-01", a version no client supports).
	AnswerVersion string

	// Resources is the number of static resources demo://resource/1..N
	// (default 100; negative for none).
	Resources int
	// PageSize is the page size of every list method (default 10).
	PageSize int

	// Delay is added before handling every request except initialize
	// (latency fault). Requests then all run concurrently, so the delay
	// does not add up; the delay honours cancellation.
	Delay time.Duration
	// ExitAfter (fault): after this many requests on a connection, the next
	// request is not answered and Serve returns ErrExitRequested (the CLI
	// exits the process). Counts every request, initialize and ping
	// included.
	ExitAfter int
	// CloseAfter (fault): like ExitAfter, but Serve closes the connection
	// and returns ErrCloseRequested; ServeStdio then stays alive with its
	// stdout closed until its context ends.
	CloseAfter int
	// GarbageEvery (fault): write a garbage line before every Nth response
	// on a connection, alternately one that is not JSON and one that is not
	// valid UTF-8.
	GarbageEvery int
	// StderrSpam (fault): bytes of noise written to Stderr for every
	// request, from the connection's reader, so a Stderr that blocks
	// stalls the server like an undrained pipe.
	StderrSpam int
	// Stderr receives the StderrSpam noise (nothing is written if nil).
	Stderr io.Writer
	// StallAfter and StallFor (fault): StallAfter after the server's first
	// request other than initialize, the whole server stops handling
	// requests for StallFor (a GC pause, a blocked database): requests
	// arriving in the window wait until it ends. Load tests use it to show
	// coordinated omission.
	StallAfter, StallFor time.Duration
	// BadOutput (fault): the echo tool's structuredContent does not match
	// its outputSchema (the required "text" is missing).
	BadOutput bool

	// ClientRequestTimeout bounds how long the server waits for the
	// client's answer to sampling/createMessage, elicitation/create and
	// roots/list (default 30s). On expiry it sends notifications/cancelled.
	ClientRequestTimeout time.Duration

	// Logger receives the server's own diagnostics (default: discarded).
	Logger *slog.Logger
}

const defaultInstructions = "demoserver is the mcpengine test server. " +
	"Tools: echo, add, sleep, progress, fail, large, sample, elicit, roots, log, notify, touch."

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "demoserver"
	}
	if o.Version == "" {
		o.Version = "1.0.0"
	}
	if o.Instructions == "" {
		o.Instructions = defaultInstructions
	}
	if len(o.Versions) == 0 {
		o.Versions = messages.KnownVersions
	}
	o.Versions = slices.Clone(o.Versions)
	switch {
	case o.Resources == 0:
		o.Resources = 100
	case o.Resources < 0:
		o.Resources = 0
	}
	if o.PageSize <= 0 {
		o.PageSize = 10
	}
	if o.ClientRequestTimeout <= 0 {
		o.ClientRequestTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Server is an MCP server for tests, demos and benchmarks. One Server can
// serve any number of connections at once; each gets its own session state
// (negotiated version, log level, subscriptions) and all share the Stats.
type Server struct {
	opts  Options
	stats *stats

	methods map[string]methodSpec
	tools   []*tool
	toolMap map[string]*tool
	prompts []promptDef
	stall   stallWindow
	listens listenHub // open subscriptions/listen requests (listen.go)
}

// New returns a Server with the given options.
func New(opts Options) *Server {
	s := &Server{opts: opts.withDefaults()}
	s.tools = demoTools()
	s.toolMap = make(map[string]*tool, len(s.tools))
	toolNames := make([]string, 0, len(s.tools))
	for _, t := range s.tools {
		s.toolMap[t.def.Name] = t
		toolNames = append(toolNames, t.def.Name)
	}
	s.prompts = demoPrompts()
	s.methods = methodTable()
	if s.opts.speaksModern() {
		s.methods[messages.MethodServerDiscover] = methodSpec{handle: handleDiscover, early: true}
		s.methods[messages.MethodSubscriptionsListen] = methodSpec{handle: handleListen, slow: true}
	}
	methodNames := make([]string, 0, len(s.methods))
	for m := range s.methods {
		methodNames = append(methodNames, m)
	}
	s.stats = newStats(methodNames, toolNames)
	return s
}

// Serve serves one client on conn until the client closes its side (nil),
// ctx ends (ctx's error), a fault fires (ErrExitRequested,
// ErrCloseRequested) or the connection fails (the transport error). Serve
// owns conn: it closes it before returning, and returns only after every
// goroutine it started has exited. Serve may be called concurrently for
// different connections.
func (s *Server) Serve(ctx context.Context, conn transport.Conn) error {
	return newSession(s, conn).serve(ctx)
}
