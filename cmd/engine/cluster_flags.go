package main

import (
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpengine/mcpengine/cluster"
)

// clusterFlags are the membership flags of every command that joins an
// engine cluster (engine worker, engine gateway --join).
type clusterFlags struct {
	listen     string
	join       string
	name       string
	provider   string
	remotePort int
	refresh    time.Duration
	consul     string
	etcd       string
	etcdKey    string
}

// register adds the flags to fl; the membership address is listenFlag
// (the worker's --listen, the gateway's --listen-cluster, whose --listen
// is its HTTP endpoint).
func (c *clusterFlags) register(fl *pflag.FlagSet, listenFlag, listenUsage string) {
	fl.StringVar(&c.listen, listenFlag, "", listenUsage)
	fl.StringVar(&c.join, "join", "", "automanaged: the members' --"+listenFlag+" addresses, comma-separated")
	fl.StringVar(&c.name, "cluster", cluster.DefaultName, "cluster name: members join only members of the same name")
	fl.StringVar(&c.provider, "provider", automanaged, "membership provider: "+providerNames())
	fl.IntVar(&c.remotePort, "remote-port", 0, "automanaged: the actor remote's port (0: a free one)")
	fl.DurationVar(&c.refresh, "refresh", time.Second, "automanaged: how often members are polled (how soon a dead one is noticed)")
	fl.StringVar(&c.consul, "consul-address", "", "consul: the agent's HTTP address (default $CONSUL_HTTP_ADDR or 127.0.0.1:8500)")
	fl.StringVar(&c.etcd, "etcd-endpoints", "", "etcd: client endpoints, comma-separated (default 127.0.0.1:2379)")
	fl.StringVar(&c.etcdKey, "etcd-base-key", "", "etcd: key prefix of the members (default /protoactor)")
}

// membership is the membership part of a cluster.Config.
func (c *clusterFlags) membership(log *slog.Logger, verbose bool) (cluster.Config, error) {
	reg, err := c.registry()
	if err != nil {
		return cluster.Config{}, err
	}
	cfg := cluster.Config{
		Name:       c.name,
		Listen:     c.listen,
		RemotePort: c.remotePort,
		Join:       splitList(c.join),
		Provider:   cluster.ProviderConfig{RefreshTTL: c.refresh, Registry: reg},
		Logger:     log,
	}
	if verbose {
		lvl := slog.LevelInfo
		cfg.LibraryLogLevel = &lvl
	}
	return cfg, nil
}

// automanaged is the default provider, built into the cluster package:
// it polls the static host list of --join.
const automanaged = "automanaged"

// registryProviders are the --provider names of the cluster/provider
// packages, each with the build tag that leaves it (and the client of
// its service) out of the binary.
var registryProviders = []struct{ name, leftOutBy string }{
	{"consul", "noclusterconsul"},
	{"etcd", "noclusteretcd"},
	{"k8s", "noclusterk8s"},
}

// builtRegistries are the registry providers this binary holds, by
// --provider name: each is added by its own file (cluster_provider_*.go)
// unless the build tag of registryProviders leaves that file out.
var builtRegistries = map[string]func(*clusterFlags) cluster.Registry{}

// registry is the provider --provider names: nil for automanaged.
func (c *clusterFlags) registry() (cluster.Registry, error) {
	if c.provider == automanaged {
		return nil, nil
	}
	if newRegistry, ok := builtRegistries[c.provider]; ok {
		return newRegistry(c), nil
	}
	for _, p := range registryProviders {
		if p.name == c.provider {
			return nil, usagef("--provider %s: this engine was built without it (go build -tags %s); use %s, or an engine built without that tag",
				c.provider, p.leftOutBy, providerNames())
		}
	}
	return nil, usagef("--provider %q: use %s", c.provider, providerNames())
}

// providerNames lists the providers this binary holds, for help and
// errors: "automanaged, consul, etcd or k8s".
func providerNames() string {
	names := []string{automanaged}
	for _, p := range registryProviders {
		if _, ok := builtRegistries[p.name]; ok {
			names = append(names, p.name)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
