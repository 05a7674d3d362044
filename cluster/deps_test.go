package cluster

import (
	"strings"
	"testing"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// registryClients are what the Registry providers link and a member on
// the automanaged provider's static host list must not: the Kubernetes,
// Consul and etcd clients, protoactor's providers built on them, and the
// packages of cluster/provider that wrap those.
var registryClients = []string{
	"k8s.io/",
	"sigs.k8s.io/",
	"github.com/hashicorp/consul/",
	"go.etcd.io/",
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/consul",
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd",
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/k8s",
	"github.com/mcpengine/mcpengine/cluster/provider/",
}

// A program that embeds the cluster with the static host list links no
// registry client: each is linked only by importing its package under
// cluster/provider.
func TestClusterLinksNoRegistryClient(t *testing.T) {
	isClient := func(pkg string) bool {
		for _, c := range registryClients {
			if strings.HasPrefix(pkg+"/", c) {
				return true
			}
		}
		return false
	}
	for _, c := range testkit.ForbiddenLinks(t, "github.com/mcpengine/mcpengine/cluster", isClient) {
		t.Errorf("cluster links a registry client: %s", c)
	}
}
