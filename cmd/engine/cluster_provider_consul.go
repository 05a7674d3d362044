//go:build !noclusterconsul

package main

import (
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/cluster/provider/consul"
)

// --provider consul; -tags noclusterconsul leaves it, and the Consul
// client, out of the binary.
func init() {
	builtRegistries["consul"] = func(c *clusterFlags) cluster.Registry {
		return consul.Provider{Address: c.consul}
	}
}
