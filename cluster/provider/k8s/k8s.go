// Package k8s is the cluster's Kubernetes membership provider: each
// member labels its own pod and watches the pods of its cluster through
// the Kubernetes API (docs/cluster/k8s has the manifests and the RBAC it
// needs). Set cluster.Config.Provider.Registry to a Provider; a program
// that does not import this package links no Kubernetes client.
package k8s

import (
	"context"
	"fmt"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	protok8s "github.com/asynkron/protoactor-go/cluster/clusterproviders/k8s"

	"github.com/mcpengine/mcpengine/cluster"
)

// Provider is protoactor's Kubernetes provider. It takes everything from
// the pod it runs in: its service account, namespace and hostname.
type Provider struct{}

var _ cluster.Registry = Provider{}

// Name is "k8s".
func (Provider) Name() string { return "k8s" }

// ClusterProvider builds protoactor's Kubernetes provider, which reads
// the pod's in-cluster configuration.
func (Provider) ClusterProvider(context.Context) (protocluster.ClusterProvider, error) {
	p, err := protok8s.New()
	if err != nil {
		return nil, fmt.Errorf("cluster: kubernetes provider (runs only inside a pod): %w", err)
	}
	return p, nil
}
