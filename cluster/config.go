package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/mcpengine/mcpengine"
)

// DefaultName is the cluster name when Config.Name is empty. Members join
// only members of the same name.
const DefaultName = "mcpengine"

// Config says how a member joins its cluster and what it offers.
type Config struct {
	// Name of the cluster; default DefaultName.
	Name string
	// Listen is the host:port other members reach this member at for
	// membership. With the automanaged provider it is the provider's
	// health endpoint (which protoactor binds on 0.0.0.0 whatever the
	// host) and the actor remote binds Host:RemotePort; with a
	// Provider.Registry (Consul, etcd, Kubernetes) it is the actor
	// remote's own address, which the registry advertises.
	Listen string
	// Listener, when set, is the automanaged provider's listener, already
	// bound (Listen is then taken from its address); the member owns it,
	// and Start closes it when it fails. Tests bind all
	// members' listeners before starting any, so that each can name the
	// others in Join without racing for free ports.
	Listener net.Listener
	// RemotePort is the actor remote's port under the automanaged
	// provider; 0 picks a free one (members learn it from the health
	// endpoint, so only firewalls care).
	RemotePort int
	// Join lists the other members' Listen addresses (automanaged only:
	// the static host list it polls).
	Join []string
	// Provider picks the membership provider; the zero value is
	// automanaged, polling Join.
	Provider ProviderConfig
	// Kinds are more virtual actor kinds this member offers (the load
	// worker, for one) beside SessionKind.
	Kinds []*protocluster.Kind

	// Servers is the server table sessions are opened against (the
	// mcpServers JSON); every member must hold the same one.
	Servers map[string]mcpengine.ServerConfig
	// Engine configures the member's engine, which holds the sessions
	// this member owns.
	Engine mcpengine.Config
	// CallTimeout bounds a call to a session that has no deadline of its
	// own (default 60s, the engine's default request timeout).
	CallTimeout time.Duration

	// ServerRequests answers the requests a session's server sends its
	// client (sampling/createMessage, elicitation/create, roots/list)
	// while running a call this member made with
	// CallOptions.ServesRequests, or, related to no such call, on a
	// session this member watches. The owner sends them here; nil
	// answers them with -32601. It runs on a goroutine of its own; ctx
	// ends when the server's wait for the answer does.
	ServerRequests ServerRequestHandler
	// ForwardServerRequests makes the sessions this member owns declare
	// sampling, elicitation and roots to their servers and send those
	// requests on to the member that answers them, although this member
	// answers none itself (ServerRequests nil): for a member that owns
	// sessions other members, which do answer, call. Without it, and
	// without ServerRequests, the sessions declare none of the three
	// (unless the member's Engine has handlers of its own), so that a
	// server never sends a request that no member of the cluster can
	// answer.
	ForwardServerRequests bool

	// Logger receives the member's logs, and protoactor's from
	// LibraryLogLevel (default warn) up; nil is silent.
	Logger          *slog.Logger
	LibraryLogLevel *slog.Level
}

// ProviderConfig selects and configures the membership provider.
type ProviderConfig struct {
	// RefreshTTL is how often the automanaged provider polls its hosts,
	// hence how soon a dead member is noticed (default 1s); under every
	// provider, how often a Watcher renews its watch.
	RefreshTTL time.Duration
	// Registry, when set, replaces the automanaged provider with one that
	// keeps the member list in a service: consul.Provider, etcd.Provider
	// or k8s.Provider, each in its package under cluster/provider.
	Registry Registry
}

// errConfig marks a Config Start refuses.
var errConfig = errors.New("cluster: invalid config")

// listenAddr splits c.Listen into host and port, refusing what no member
// could be reached at.
func (c *Config) listenAddr() (string, int, error) {
	if c.Listener != nil {
		c.Listen = c.Listener.Addr().String()
	}
	host, p, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return "", 0, fmt.Errorf("%w: Listen %q: %v", errConfig, c.Listen, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%w: Listen %q: bad port", errConfig, c.Listen)
	}
	if host == "" {
		return "", 0, fmt.Errorf("%w: Listen %q: a host other members reach this one at is needed", errConfig, c.Listen)
	}
	return host, port, nil
}

func (c *Config) name() string {
	if c.Name == "" {
		return DefaultName
	}
	return c.Name
}

// watchRenew is how often a Watcher renews its watch: the provider's
// poll interval, how soon a dead owner is noticed anyway.
func (c *Config) watchRenew() time.Duration {
	if c.Provider.RefreshTTL > 0 {
		return c.Provider.RefreshTTL
	}
	return time.Second
}

func (c *Config) callTimeout() time.Duration {
	if c.CallTimeout <= 0 {
		return 60 * time.Second
	}
	return c.CallTimeout
}

// validate refuses what Start cannot run, before anything starts.
func (c *Config) validate() error {
	if _, _, err := c.listenAddr(); err != nil {
		return err
	}
	if r := c.Provider.Registry; r != nil && c.Listener != nil {
		return fmt.Errorf("%w: Listener is for the automanaged provider only, not %s", errConfig, r.Name())
	}
	for name := range c.Servers {
		if name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("%w: server name %q: a session identity is SERVER/NAME, so a server name has no /", errConfig, name)
		}
	}
	return nil
}
