//go:build !noclusterk8s

package main

import (
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/cluster/provider/k8s"
)

// --provider k8s; -tags noclusterk8s leaves it, and the Kubernetes
// client, out of the binary.
func init() {
	builtRegistries["k8s"] = func(*clusterFlags) cluster.Registry { return k8s.Provider{} }
}
