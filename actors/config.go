package actors

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport"
)

// Defaults for a session's configuration.
const (
	defaultRequestTimeout = 60 * time.Second
	DefaultInitTimeout    = 30 * time.Second
	defaultMaxInFlight    = 4096
	defaultQueueLimit     = 1024
	defaultDispatchQueue  = 4096
	// closeGrace bounds the shutdown of a dead connection's transport after
	// a failure (the caller's ctx bounds it on Close).
	closeGrace = 10 * time.Second
)

// ServerRequestHandler answers a server-initiated request (sampling,
// elicitation). It runs in its own goroutine; ctx is cancelled when the
// server cancels the request or the connection goes away.
type ServerRequestHandler func(ctx context.Context, params messages.RawMessage) (any, error)

// Notification is a server notification as delivered to subscribers.
type Notification struct {
	Method string
	Params messages.RawMessage
}

// SessionConfig is everything a session needs; it is rebuilt into a new
// actor on every panic restart, so it must be self-contained.
type SessionConfig struct {
	Name   string
	Dialer transport.Dialer
	// Handshake makes the strategy of each handshake (EraHandshake, shared
	// by the sessions of a server; legacyHandshake by default).
	Handshake handshakePlan

	RequestTimeout time.Duration

	// Settings are shared with the engine's other sessions (nil: the
	// defaults). Its fields read as the config's own (cfg.InitTimeout).
	*Settings

	// Roots, when non-nil, is answered to roots/list and advertises the
	// roots capability (with listChanged).
	Roots    []messages.Root
	Sampling ServerRequestHandler
	// Elicitation answers elicitation/create in the modes ElicitationModes
	// names (none named: form mode only).
	Elicitation      ServerRequestHandler
	ElicitationModes ElicitationModes
	// RootsHandler, when set, answers roots/list instead of Roots.
	RootsHandler ServerRequestHandler
	// ServedTasks, when set, declares the task-augmented requests the
	// client runs (2025-11-25) and answers the server's tasks/* requests
	// about them. One pointer: SessionConfig lives in every session's
	// Shared, which is kept inside its size class.
	ServedTasks *ServedTasks

	// NotificationTap, when set, sees every server notification on the
	// session's goroutine, before any watcher, whether or not one is
	// registered (so it opens no listen). It must not block or keep
	// n.Params. The engine's result cache drops results with it.
	NotificationTap func(n Notification)

	// Peer describes the server for telemetry (nil without telemetry:
	// only telemetry reads it).
	Peer *telemetry.Peer
}

// Settings are the parts of a session's configuration that the sessions
// of an engine have in common: one copy behind a pointer, rather than a
// copy in every session's Shared, which must stay inside its size class.
// A Settings is not changed once a session uses it.
type Settings struct {
	InitTimeout   time.Duration
	MaxInFlight   int
	QueueLimit    int
	dispatchQueue int

	// MaxFrameBytes caps one received frame in the decoder, as the
	// transport does while reading (default messages.MaxMessageBytes):
	// a frame the transport let through must decode.
	MaxFrameBytes int

	Backoff supervisor.Policy
	// RetryInitialConnect keeps retrying, under Backoff, a session whose
	// first connection never reached its server (refused, unresolvable
	// host, TLS failure, command not started): for a server that is still
	// starting. Without it such a session closes at once with a
	// *ConnectError.
	RetryInitialConnect bool
	// StartAttempts bounds how many times a session that was never ready
	// tries its server when every try fails before the handshake completes
	// (the server exits, closes the connection or never answers
	// initialize): then the session closes with a *mcperr.StartupError.
	// Zero means DefaultStartAttempts; RetryInitialConnect lifts the bound.
	// A dialer that starts no process (a network server) gets one
	// initialize timeout (startup.go).
	StartAttempts int
	// MaxBudgetedRetries bounds consecutive restarts for failures that carry
	// a budget (version mismatch); default 5.
	MaxBudgetedRetries int

	Logger *slog.Logger

	// Telemetry, when not nil, traces calls and the session lifecycle and
	// records metrics; nil costs nothing.
	Telemetry *telemetry.Telemetry
}

// WithDefaults returns s with every unset field at its default: s itself
// when nothing is unset (so sessions sharing it keep sharing it), else a
// copy.
func (s *Settings) WithDefaults() *Settings {
	if s != nil && s.InitTimeout > 0 && s.MaxInFlight > 0 && s.QueueLimit > 0 &&
		s.MaxFrameBytes > 0 && s.dispatchQueue > 0 && s.Logger != nil {
		return s
	}
	c := Settings{}
	if s != nil {
		c = *s
	}
	if c.InitTimeout <= 0 {
		c.InitTimeout = DefaultInitTimeout
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = defaultMaxInFlight
	}
	if c.QueueLimit <= 0 {
		c.QueueLimit = defaultQueueLimit
	}
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = messages.MaxMessageBytes
	}
	if c.dispatchQueue <= 0 {
		c.dispatchQueue = defaultDispatchQueue
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return &c
}

func (c *SessionConfig) withDefaults() {
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = defaultRequestTimeout
	}
	c.Settings = c.Settings.WithDefaults()
	if c.Handshake == nil {
		c.Handshake = &legacyHandshake{}
	}
}

// ElicitationModes says which elicitation modes the client answers.
type ElicitationModes struct{ Form, URL bool }

// capability declares the modes: an empty object when only form mode is
// answered (what every version since 2025-06-18 reads as form mode),
// the modes by name once URL mode (2025-11-25) is among them.
func (m ElicitationModes) capability() *messages.ElicitationCapability {
	if !m.URL {
		return &messages.ElicitationCapability{}
	}
	c := &messages.ElicitationCapability{URL: &messages.ElicitationURLCapability{}}
	if m.Form {
		c.Form = &messages.ElicitationFormCapability{}
	}
	return c
}

// clientCapabilities follows the handlers present: a capability is
// advertised only when the engine can actually serve it.
func (c *SessionConfig) clientCapabilities() messages.ClientCapabilities {
	var caps messages.ClientCapabilities
	if c.Roots != nil || c.RootsHandler != nil {
		caps.Roots = &messages.RootsCapability{ListChanged: true}
	}
	if c.Sampling != nil {
		caps.Sampling = &messages.SamplingCapability{}
	}
	if c.Elicitation != nil {
		caps.Elicitation = c.ElicitationModes.capability()
	}
	if c.ServedTasks != nil {
		caps.Tasks = c.ServedTasks.Capability
	}
	return caps
}

// ServedTasks are the tasks the client runs for the server: what it
// declares and, by method, the handlers of the server's tasks/* requests.
type ServedTasks struct {
	Capability *messages.TasksCapability
	Handlers   map[string]ServerRequestHandler
}
