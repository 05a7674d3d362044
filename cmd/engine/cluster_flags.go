package main

import (
	"log/slog"
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
	fl.StringVar(&c.provider, "provider", cluster.ProviderAutomanaged, "membership provider: automanaged, consul, etcd or k8s")
	fl.IntVar(&c.remotePort, "remote-port", 0, "automanaged: the actor remote's port (0: a free one)")
	fl.DurationVar(&c.refresh, "refresh", time.Second, "automanaged: how often members are polled (how soon a dead one is noticed)")
	fl.StringVar(&c.consul, "consul-address", "", "consul: the agent's HTTP address (default $CONSUL_HTTP_ADDR or 127.0.0.1:8500)")
	fl.StringVar(&c.etcd, "etcd-endpoints", "", "etcd: client endpoints, comma-separated (default 127.0.0.1:2379)")
	fl.StringVar(&c.etcdKey, "etcd-base-key", "", "etcd: key prefix of the members (default /protoactor)")
}

// membership is the membership part of a cluster.Config.
func (c *clusterFlags) membership(log *slog.Logger, verbose bool) cluster.Config {
	cfg := cluster.Config{
		Name:       c.name,
		Listen:     c.listen,
		RemotePort: c.remotePort,
		Join:       splitList(c.join),
		Provider: cluster.ProviderConfig{
			Kind:          c.provider,
			RefreshTTL:    c.refresh,
			ConsulAddress: c.consul,
			EtcdEndpoints: splitList(c.etcd),
			EtcdBaseKey:   c.etcdKey,
		},
		Logger: log,
	}
	if verbose {
		lvl := slog.LevelInfo
		cfg.LibraryLogLevel = &lvl
	}
	return cfg
}
