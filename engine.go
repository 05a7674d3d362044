package mcpengine

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// Config is the engine's configuration; its zero value works. Every field
// is a default for the engine's sessions, and SessionConfig can override
// the per-session ones.
type Config struct {
	// Logger receives the engine's logs; nil means silent.
	Logger *slog.Logger
	// ClientInfo is sent in initialize; default name "mcpengine".
	ClientInfo messages.Implementation
	// ProtocolVersion pins the protocol version; empty negotiates it per
	// server: the engine probes with server/discover in the newest
	// stateless-era version (2026-07-28) and falls back to initialize for
	// servers of the handshake era (2024-11-05 … 2025-11-25), remembering
	// per server what it found. A pinned version must be one the engine
	// knows (messages.KnownVersions), else Open and Connect fail with a
	// *VersionConfigError before any traffic. A pinned legacy version is
	// offered in initialize, and with StrictVersion the engine accepts
	// only it (pin 2024-11-05 for servers that speak nothing else); a
	// pinned 2026-07-28 is spoken or the session fails.
	ProtocolVersion string
	StrictVersion   bool

	// RequestTimeout (default 60s) and InitTimeout (default 30s).
	RequestTimeout time.Duration
	InitTimeout    time.Duration
	// MaxInFlight caps concurrent requests per session (default 4096);
	// QueueLimit caps calls waiting for a session to become ready (1024).
	MaxInFlight int
	QueueLimit  int
	// Backoff shapes reconnect delays. RestartBudget bounds consecutive
	// restarts for failures that rarely fix themselves (a version mismatch,
	// a command that cannot be started) before the session closes for good
	// (default 5); EOFs and crashes are retried without limit.
	Backoff       BackoffPolicy
	RestartBudget int
	// RetryInitialConnect keeps retrying, under Backoff, a session whose
	// first connection never reached its server (refused, unresolvable
	// host, TLS failure, command not started, h2c refused) or found no
	// MCP endpoint at its URL (HTTP 404, 405, 410, 501 to initialize), for
	// a server still starting. By default such a session closes at once
	// and Connect returns a *ConnectError (errors.Is ErrUnreachable).
	RetryInitialConnect bool
	// StartAttempts bounds the tries of a session that was never ready
	// when its server fails every time before the handshake completes
	// (exits, as `node missing.js` does, closes the connection, or never
	// answers): then Connect returns a *StartupError (errors.Is
	// ErrUnreachable) naming the exit status and the server's telling
	// stderr lines. Default 3; RetryInitialConnect lifts the bound. A
	// session that was ready once is restarted under Backoff without it.
	// A server reached over the network (already running, unlike a stdio
	// command started afresh on each try) that lets InitTimeout pass
	// without answering gets one try: another would wait as long again.
	StartAttempts int
	// MaxFrameBytes caps one received frame (default 32 MiB), in the
	// transport and in the decoder alike.
	MaxFrameBytes int

	// Roots, Sampling and Elicitation are the client features offered to
	// servers; a capability is advertised only when set.
	Roots       []messages.Root
	Sampling    SamplingHandler
	Elicitation ElicitationHandler
	// URLElicitation answers URL-mode elicitation (2025-11-25) and declares
	// it; a -32042 answer is a *URLElicitationRequiredError either way.
	URLElicitation URLElicitationHandler
	// RootsHandler, when set, answers roots/list instead of Roots (and
	// advertises the roots capability).
	RootsHandler RootsHandler

	// Telemetry are the OpenTelemetry providers the engine reports spans
	// and metrics to, by the MCP semantic conventions. The zero value
	// reports nothing and costs nothing on the call path.
	// TelemetryOptions opt into recording more (tool arguments).
	Telemetry        telemetry.Providers
	TelemetryOptions telemetry.Options

	// HTTPClient sends the requests of every URL session without TLS
	// settings of its own; nil means one client per server, tuned for
	// many sessions (a keep-alive pool sized by the server's own
	// concurrency, HTTP/2 where offered, h2c where configured).
	HTTPClient *http.Client
	// OnHTTPRequest, when set, sees every HTTP request of the engine's URL
	// sessions just before it is sent (Streamable HTTP POSTs, GET streams
	// and DELETEs, HTTP+SSE, the WebSocket handshake) and may edit it:
	// add a header (a request id, a tenant), sign it. It runs on the
	// request's goroutine, concurrently for concurrent requests; it gets a
	// copy it may change (an OAuth token request to an authorization
	// server is not the session's and does not pass through it).
	// SessionConfig.OnHTTPRequest replaces it for one
	// session. For one request's headers, see WithHeader.
	OnHTTPRequest func(req *http.Request)

	// OAuth serves the servers configured with "auth": {"oauth": ...}.
	OAuth OAuthOptions

	// NoResultCache turns off the caching of 2026-07-28 CacheableResults
	// (lists and resources/read, kept while their ttlMs says they are
	// fresh; see Session.DropCachedResults).
	NoResultCache bool
}

// BackoffPolicy shapes reconnect delays: exponential from Initial by
// Multiplier, jittered, and capped at Max after the jitter.
type BackoffPolicy = supervisor.Policy

// SessionConfig names one session and says how to reach its server.
type SessionConfig struct {
	Name string
	// Server is the mcpServers-style target (command/args/env/cwd).
	Server ServerConfig
	// Dialer, when set, is used instead of Server (memory pipes, custom
	// transports).
	Dialer transport.Dialer
	// Subject is the user this session acts for, an opaque string the
	// embedder chooses (its own user id). With "auth": {"oauth": ...} the
	// sessions of one server and one subject share one Authorizer (one
	// token, one refresh at a time, stored under the subject), and another
	// subject's sessions never see it; the UserAgent is told whose sign-in
	// it runs (oauth.SubjectFromContext). Empty: the engine acts as itself.
	Subject string

	// Per-session overrides of the engine's Config (zero = engine's).
	RequestTimeout time.Duration
	Roots          []messages.Root
	Sampling       SamplingHandler
	Elicitation    ElicitationHandler
	URLElicitation URLElicitationHandler
	RootsHandler   RootsHandler
	OnHTTPRequest  func(req *http.Request)
}

// Engine holds many sessions. Every engine of a process shares one actor
// system; each engine's sessions are its own, and its Close stops only
// them.
type Engine struct {
	cfg      Config
	system   *actor.ActorSystem
	workers  *actors.WorkerPool
	registry *actors.Registry

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
	opening  sync.WaitGroup    // Opens between reserving a name and spawning
	closing  map[*Session]bool // closed, but their shutdown outlived the Close that asked for it

	httpMu      sync.Mutex
	httpClients map[httpClientKey]*http.Client // one per server, built on first use
	dialGate    httpx.DialGate                 // spaces out every client's dials while descriptors run out
	authorizers map[oauthKey]*oauthEntry       // one per server, OAuth settings and subject
	oauthStore  oauth.TokenStore               // the in-memory store when Config.OAuth has none

	eras *actors.EraCache // the protocol version settled per server
	// handshakes holds one handshake plan per server key (a
	// *actors.EraHandshake), shared by that server's sessions.
	handshakes sync.Map
	// results are the CacheableResults every session of a server may
	// share ("public"), keyed by server.
	results resultCache

	tel *telemetry.Telemetry // nil when telemetry is off
	// settings are what every session actor of the engine shares.
	settings      *actors.Settings
	observeMetric metric.Registration // the observable instruments, if any
}

// New starts an engine.
func New(cfg Config) *Engine {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		cfg:      cfg,
		system:   actors.System(),
		workers:  actors.NewWorkerPool(0, 0),
		registry: actors.NewRegistry(cfg.Logger),
		sessions: map[string]*Session{},
		eras:     actors.NewEraCache(),
	}
	e.startTelemetry()
	e.settings = (&actors.Settings{
		InitTimeout:         cfg.InitTimeout,
		MaxInFlight:         cfg.MaxInFlight,
		MaxFrameBytes:       cfg.MaxFrameBytes,
		QueueLimit:          cfg.QueueLimit,
		Backoff:             cfg.Backoff,
		MaxBudgetedRetries:  cfg.RestartBudget,
		RetryInitialConnect: cfg.RetryInitialConnect,
		StartAttempts:       cfg.StartAttempts,
		Logger:              cfg.Logger,
		Telemetry:           e.tel,
	}).WithDefaults()
	return e
}

// Open starts a session and returns at once; it connects in the background
// and keeps reconnecting. Calls made before it is ready wait in its queue.
// A session whose first connect cannot reach its server at all (refused,
// unresolvable host, TLS failure, command not started) closes at once with
// a *ConnectError, unless Config.RetryInitialConnect asks for patience.
func (e *Engine) Open(ctx context.Context, sc SessionConfig) (*Session, error) {
	if sc.Name == "" {
		return nil, errors.New("mcpengine: session needs a name")
	}
	if err := checkVersionConfig(e.cfg.ProtocolVersion); err != nil {
		return nil, err
	}
	dialer := sc.Dialer
	if dialer == nil {
		var err error
		hook := e.cfg.OnHTTPRequest
		if sc.OnHTTPRequest != nil {
			hook = sc.OnHTTPRequest
		}
		if dialer, err = sc.Server.dialer(e.cfg.MaxFrameBytes, e, hook, sc.Subject); err != nil {
			return nil, err
		}
	}
	key := sc.serverKey()
	ac, served := e.actorConfig(sc, key, dialer)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, ErrEngineClosed
	}
	if _, dup := e.sessions[sc.Name]; dup {
		e.mu.Unlock()
		return nil, ErrDuplicateName
	}
	s := &Session{name: sc.Name, engine: e, peer: ac.Peer, served: served}
	s.results = sessionResults{serverKey: key, off: e.cfg.NoResultCache}
	if s.results.serverKey != "" {
		s.results.public = &e.results
	}
	ac.NotificationTap = s.results.tap
	e.sessions[sc.Name] = s // reserve the name while spawning
	// Close waits for spawns under way, so that a session opened while the
	// engine closes is closed too, never left running.
	e.opening.Add(1)
	defer e.opening.Done()
	e.mu.Unlock()

	h, err := e.registry.Spawn(ctx, actors.NewShared(e.system, e.workers, ac))
	if err != nil {
		e.forget(sc.Name, s, false)
		return nil, err
	}
	e.mu.Lock() // Sessions and Close read s.h under the lock
	s.h, s.sh = h, h.Shared()
	e.mu.Unlock()
	return s, nil
}

// Connect starts a session and waits until it is ready (or ctx ends, or
// the session closes for good). On failure the session is closed again; a
// server never reached gives a *ConnectError at once (errors.Is
// ErrUnreachable), not a wait for ctx.
func (e *Engine) Connect(ctx context.Context, sc SessionConfig) (*Session, error) {
	s, err := e.Open(ctx, sc)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx); err != nil {
		// Close within what is left of the caller's deadline (at most
		// 5 s): a server that ignores the end of its input and SIGTERM
		// takes seconds to kill, and the caller must not wait for that
		// past its deadline. What Close leaves undone finishes in the
		// background (the server is still killed and reaped), and
		// Engine.Close waits for it.
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = s.Close(cctx)
		var unreachable *ConnectError
		if errors.As(err, &unreachable) {
			return nil, unreachable // the whole story; "session closed" would only add noise
		}
		var startup *StartupError
		if errors.As(err, &startup) {
			return nil, startup // likewise
		}
		return nil, err
	}
	return s, nil
}

// handshakeFor is the handshake plan of the server whose key is key: its
// sessions share one (it holds settings only), a session without a key
// has its own.
func (e *Engine) handshakeFor(key string) *actors.EraHandshake {
	if key != "" {
		if h, ok := e.handshakes.Load(key); ok {
			return h.(*actors.EraHandshake)
		}
	}
	c := e.cfg
	h := &actors.EraHandshake{
		ClientInfo:   c.ClientInfo,
		Pin:          c.ProtocolVersion,
		Strict:       c.StrictVersion,
		Cache:        e.eras,
		Key:          key,
		ProbeTimeout: probeTimeout(c.InitTimeout),
	}
	if key != "" {
		shared, _ := e.handshakes.LoadOrStore(key, h)
		return shared.(*actors.EraHandshake)
	}
	return h
}

// actorConfig is the session actor's configuration for sc, whose server
// key is key. served is nil unless the session has a sampling or
// elicitation handler: only those run tasks the server asks for, and an
// idle session should not carry the bookkeeping.
func (e *Engine) actorConfig(sc SessionConfig, key string, dialer transport.Dialer) (ac actors.SessionConfig, served *servedTasks) {
	c := e.cfg
	ac = actors.SessionConfig{
		Name:           sc.Name,
		Dialer:         dialer,
		Handshake:      e.handshakeFor(key),
		RequestTimeout: firstDuration(sc.RequestTimeout, c.RequestTimeout),
		Settings:       e.settings,
		Roots:          c.Roots,
		Peer:           e.sessionPeer(sc),
	}
	if sc.Roots != nil {
		ac.Roots = sc.Roots
	}
	sampling, elicitation := c.Sampling, c.Elicitation
	if sc.Sampling != nil {
		sampling = sc.Sampling
	}
	if sc.Elicitation != nil {
		elicitation = sc.Elicitation
	}
	urlElicitation := c.URLElicitation
	if sc.URLElicitation != nil {
		urlElicitation = sc.URLElicitation
	}
	if sampling != nil || elicitation != nil || urlElicitation != nil {
		served = newServedTasks()
	}
	if sampling != nil {
		ac.Sampling = served.augment(sampling.raw())
	}
	if elicitation != nil || urlElicitation != nil {
		ac.Elicitation = served.augment(elicitationRaw(elicitation, urlElicitation))
		ac.ElicitationModes = actors.ElicitationModes{Form: elicitation != nil, URL: urlElicitation != nil}
	}
	// The handshake era's task-augmented sampling and elicitation
	// (2025-11-25), declared when there is a handler to run them.
	if caps := servedTasksCapability(sampling != nil, ac.Elicitation != nil); caps != nil {
		ac.ServedTasks = &actors.ServedTasks{Capability: caps, Handlers: served.handlers()}
	}
	roots := c.RootsHandler
	if sc.RootsHandler != nil {
		roots = sc.RootsHandler
	}
	if roots != nil {
		ac.RootsHandler = roots.raw()
	}
	return ac, served
}

func firstDuration(ds ...time.Duration) time.Duration {
	for _, d := range ds {
		if d > 0 {
			return d
		}
	}
	return 0
}

// forget frees a closed session's name. A session whose Close returned
// before its shutdown finished (the caller's ctx ended first: a server
// that takes seconds to kill) is kept among the closing ones, which
// Engine.Close waits for, until the shutdown is over.
func (e *Engine) forget(name string, s *Session, unfinished bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sessions[name] == s {
		delete(e.sessions, name)
	}
	if !unfinished || e.closing[s] {
		return
	}
	if e.closing == nil {
		e.closing = map[*Session]bool{}
	}
	e.closing[s] = true
	// Owner: the engine. Exits when the session's shutdown is over
	// (bounded by the transport's close grace).
	go func() {
		s.h.WaitClosed()
		e.mu.Lock()
		delete(e.closing, s)
		e.mu.Unlock()
	}()
}

// Session returns the named session.
func (e *Engine) Session(name string) (*Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[name]
	if !ok || s.h == nil {
		return nil, ErrUnknownSession
	}
	return s, nil
}

// Sessions returns every open session, sorted by name.
func (e *Engine) Sessions() []*Session {
	e.mu.Lock()
	out := e.spawnedLocked()
	e.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// spawnedLocked lists the sessions whose actor exists (a name reserved by
// an Open under way is left out). e.mu must be held.
func (e *Engine) spawnedLocked() []*Session {
	out := make([]*Session, 0, len(e.sessions))
	for _, s := range e.sessions {
		if s.h != nil {
			out = append(out, s)
		}
	}
	return out
}

// Close closes every session concurrently (bounded by ctx) and stops the
// engine's actors (the actor system is the process's, shared by its
// engines, and stays). Sessions not closed by the time ctx ends are abandoned and
// ctx.Err() is returned.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.opening.Wait()
	e.mu.Lock()
	sessions := e.spawnedLocked()
	for s := range e.closing {
		sessions = append(sessions, s)
	}
	e.mu.Unlock()

	var wg sync.WaitGroup
	errs := make([]error, len(sessions))
	for i, s := range sessions {
		wg.Add(1)
		// Owner: this Close. Exits when the session's Close returns
		// (bounded by ctx).
		go func() {
			defer wg.Done()
			errs[i] = s.Close(ctx)
		}()
	}
	wg.Wait()
	e.stopTelemetry()
	// Dials the HTTP clients still finish for their pools end now, and
	// what they left idle closes: nothing holds a descriptor past Close.
	gateErr := e.dialGate.Close(ctx)
	e.closeHTTPClients()
	// The actor system is the process's: only this engine's actors stop.
	e.registry.Stop(ctx.Done())
	e.workers.Stop(ctx.Done())
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(append(errs, gateErr)...)
}
