//go:build !noclusteretcd

package main

import (
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/cluster/provider/etcd"
)

// --provider etcd; -tags noclusteretcd leaves it, and the etcd client,
// out of the binary.
func init() {
	builtRegistries["etcd"] = func(c *clusterFlags) cluster.Registry {
		return etcd.Provider{Endpoints: splitList(c.etcd), BaseKey: c.etcdKey}
	}
}
