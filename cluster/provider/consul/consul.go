// Package consul is the cluster's Consul membership provider: members
// register as services with the Consul agent and watch its catalog. Set
// cluster.Config.Provider.Registry to a Provider; a program that does not
// import this package links no Consul client.
package consul

import (
	"context"
	"fmt"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	protoconsul "github.com/asynkron/protoactor-go/cluster/clusterproviders/consul"
	"github.com/hashicorp/consul/api"

	"github.com/mcpengine/mcpengine/cluster"
)

// Provider is protoactor's Consul provider.
type Provider struct {
	// Address is the Consul agent's HTTP address; empty uses
	// CONSUL_HTTP_ADDR, else 127.0.0.1:8500.
	Address string
}

var _ cluster.Registry = Provider{}

// Name is "consul".
func (Provider) Name() string { return "consul" }

// ClusterProvider builds protoactor's Consul provider. It asks the agent
// nothing yet: the member registers when it starts.
func (p Provider) ClusterProvider(context.Context) (protocluster.ClusterProvider, error) {
	cp, err := protoconsul.NewWithConfig(&api.Config{Address: p.Address})
	if err != nil {
		return nil, fmt.Errorf("cluster: consul provider: %w", err)
	}
	return cp, nil
}
