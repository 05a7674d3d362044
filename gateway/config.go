package gateway

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// Config is a gateway: the servers it fronts, who may use them and under
// which policy. Build it in Go or load it from an mcpServers file with a
// "gateway" section (LoadConfig). The zero value of every optional field
// is a sensible default.
type Config struct {
	// Cluster, when set, makes the gateway a member of an engine cluster
	// (docs/CLUSTER.md) whose pool slots are cluster sessions named
	// SERVER/pool-N alike on every gateway: gateways of one cluster share
	// one set of upstream sessions, each owned by one member. Servers,
	// Engine and ServerRequests are the gateway's own; servers must not
	// use a Dialer.
	Cluster *cluster.Config
	// Servers are the upstream MCP servers by name (the mcpServers names).
	Servers map[string]Server
	// Version is the version the gateway gives as its serverInfo (default:
	// the module version recorded in the binary, else "dev"); a program
	// that knows its own build version (engine gateway) sets it.
	Version string
	// Clients are the gateway clients allowed in, each with its bearer
	// token and policy. With none, authentication is off: anyone who can
	// reach the listener (loopback only, unless allowed) is let in under
	// an empty client policy.
	Clients []Client
	// Audit configures the log of tool calls.
	Audit Audit

	// SessionIdleTimeout ends an aggregated-endpoint session that has had
	// no HTTP request in progress for this long (default 30m).
	SessionIdleTimeout time.Duration
	// ReadyWait bounds how long a request waits for a server that is
	// (re)connecting before it fails with -32000 (default 5s). A server
	// whose every session is in backoff fails at once.
	ReadyWait time.Duration
	// ClientRequestTimeout bounds the wait for a gateway client's answer
	// to a forwarded sampling, elicitation or roots request (default 60s).
	ClientRequestTimeout time.Duration
	// MaxBodyBytes caps a POSTed body (default 4 MiB).
	MaxBodyBytes int64
	// AllowedHosts are Host values accepted besides loopback names
	// ("name" with any port, or "name:port"). A request that arrived on a
	// loopback address naming another host is refused with 403 (the
	// DNS-rebinding protection, see httpserve.Guard); listing any hosts
	// applies the check on every address, for a gateway served beyond
	// loopback under known names.
	AllowedHosts []string
	// AllowedOrigins are Origin values accepted besides those naming an
	// accepted host (DNS-rebinding protection).
	AllowedOrigins []string
	// BodyTimeout bounds the reading of a request body from the end of
	// its headers (default httpserve.DefaultBodyTimeout, 30s); a slower
	// body gets 408 and its connection is closed.
	BodyTimeout time.Duration
	// ReadHeaderTimeout bounds the reading of a request's headers
	// (default mcpserver.DefaultReadHeaderTimeout, 10s).
	ReadHeaderTimeout time.Duration
	// MaxConnections caps the connections a listener serves at once
	// (default mcpserver.DefaultMaxConnections, 8192; negative: no cap);
	// past it new connections wait until one closes.
	MaxConnections int

	// Engine is the base configuration of the engine holding the upstream
	// sessions (backoff, timeouts, client info, telemetry). Its Sampling,
	// Elicitation and Roots are ignored: the gateway forwards those to its
	// own clients. A zero RestartBudget means no limit: a server that
	// cannot start is retried at the capped backoff until it can.
	Engine mcpengine.Config
	// Logger receives the gateway's logs; nil means Engine.Logger, or
	// silent.
	Logger *slog.Logger
}

// Server is one upstream server and how the gateway uses it.
type Server struct {
	// Target says how to reach it (command, or url with headers and auth).
	Target mcpengine.ServerConfig
	// Dialer, when set, is used instead of Target: a server in the same
	// process (transport/memory), or a transport of the application's.
	Dialer transport.Dialer
	// Pool is the number of sessions held to it (default 1); requests go
	// to the least-loaded ready one.
	Pool int
	// Prefix is put before its tool and prompt names (and resource names)
	// on the aggregated endpoint; default name + "__". NoPrefix leaves the
	// names alone (for a gateway in front of one server).
	Prefix   string
	NoPrefix bool
	// Policy applies to every client's use of this server.
	Policy Policy
	// Roots are answered to the server's roots/list when it cannot be
	// attributed to one gateway client (asked outside of any request);
	// default none.
	Roots []messages.Root
}

// Client is one gateway client: a bearer token and the policy it gets.
type Client struct {
	// Name identifies the client in errors, the audit log and metrics.
	Name string
	// Token is the bearer token the client presents.
	Token string
	// Policy applies to the client's use of every server.
	Policy Policy
	// Servers holds further policies for the client's use of one server.
	Servers map[string]Policy
}

// Audit configures the audit log: one JSON line per tool call.
type Audit struct {
	// File is the path of the log, appended to; "-" is stderr; "" is off
	// unless Writer is set.
	File string
	// Writer, when set, receives the lines instead of File.
	Writer io.Writer
	// Arguments records each call's arguments (off: they may hold
	// secrets).
	Arguments bool
}

// Defaults.
const (
	DefaultSessionIdleTimeout   = 30 * time.Minute
	DefaultReadyWait            = 5 * time.Second
	DefaultClientRequestTimeout = 60 * time.Second
	DefaultMaxBodyBytes         = 4 << 20
	// MaxPool bounds Server.Pool: a pool is for spreading load over a few
	// server processes, not for a session per request.
	MaxPool = 64
	// PrefixSeparator joins the server name and the item name in the
	// default prefix.
	PrefixSeparator = "__"
)

// serverName is what a server name may look like: it appears in prefixes,
// metric labels and error messages.
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

func (c *Config) withDefaults() {
	if c.SessionIdleTimeout <= 0 {
		c.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if c.ReadyWait <= 0 {
		c.ReadyWait = DefaultReadyWait
	}
	if c.ClientRequestTimeout <= 0 {
		c.ClientRequestTimeout = DefaultClientRequestTimeout
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.Logger == nil {
		c.Logger = c.Engine.Logger
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// prefix is the server's effective name prefix.
func (s *Server) prefix(name string) string {
	switch {
	case s.NoPrefix:
		return ""
	case s.Prefix != "":
		return s.Prefix
	}
	return name + PrefixSeparator
}

// validate checks everything New relies on, so that a typo fails at start
// rather than at the first request.
func (c *Config) validate() error {
	if len(c.Servers) == 0 {
		return fmt.Errorf("gateway: no servers configured")
	}
	prefixes := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		s := c.Servers[name]
		if !serverName.MatchString(name) {
			return fmt.Errorf("gateway: server name %q: use letters, digits, '_', '.' and '-' (at most 64)", name)
		}
		if s.Dialer == nil && s.Target.Command == "" && s.Target.URL == "" {
			return fmt.Errorf("gateway: server %q has neither a command nor a url", name)
		}
		if s.Pool < 0 || s.Pool > MaxPool {
			return fmt.Errorf("gateway: server %q: pool %d is outside 1..%d", name, s.Pool, MaxPool)
		}
		p := s.prefix(name)
		for op, other := range prefixes {
			if p == op || (p != "" && op != "" && (strings.HasPrefix(p, op) || strings.HasPrefix(op, p))) {
				return fmt.Errorf("gateway: the prefixes of servers %q (%q) and %q (%q) overlap: names could not be told apart", other, op, name, p)
			}
		}
		prefixes[p] = name
		if _, err := compilePolicy(s.Policy); err != nil {
			return fmt.Errorf("gateway: server %q policy: %w", name, err)
		}
	}
	names, tokens := map[string]bool{}, map[string]string{}
	for i, cl := range c.Clients {
		switch {
		case cl.Name == "":
			return fmt.Errorf("gateway: client %d has no name", i+1)
		case names[cl.Name]:
			return fmt.Errorf("gateway: two clients are named %q", cl.Name)
		case cl.Name == anonymousName:
			return fmt.Errorf("gateway: client name %q is reserved", cl.Name)
		case len(cl.Token) < minTokenLen:
			// The value is never echoed: it is a credential.
			return fmt.Errorf("gateway: client %q: token missing or shorter than %d characters", cl.Name, minTokenLen)
		}
		if other, dup := tokens[cl.Token]; dup {
			return fmt.Errorf("gateway: clients %q and %q have the same token", other, cl.Name)
		}
		names[cl.Name], tokens[cl.Token] = true, cl.Name
		if _, err := compilePolicy(cl.Policy); err != nil {
			return fmt.Errorf("gateway: client %q policy: %w", cl.Name, err)
		}
		for server, p := range cl.Servers {
			if _, ok := c.Servers[server]; !ok {
				return fmt.Errorf("gateway: client %q has a policy for server %q, which is not configured", cl.Name, server)
			}
			if _, err := compilePolicy(p); err != nil {
				return fmt.Errorf("gateway: client %q policy for server %q: %w", cl.Name, server, err)
			}
		}
	}
	return nil
}
