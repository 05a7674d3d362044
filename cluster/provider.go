package cluster

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/labstack/echo"
)

// Registry is a membership provider that keeps the member list in a
// service of its own (Consul, etcd, the Kubernetes API) rather than
// polling the static list in Config.Join, as the automanaged default
// does. Each lives in a package of its own under cluster/provider
// (consul, etcd, k8s): a program links a service's client only if it
// imports that package, so one that runs members on a static host list
// links none of them.
type Registry interface {
	// Name names the provider in errors and logs: consul, etcd, k8s.
	Name() string
	// ClusterProvider builds protoactor's provider for the member Start
	// is starting. ctx is Start's: what the provider asks before the
	// member joins must end with it.
	ClusterProvider(ctx context.Context) (protocluster.ClusterProvider, error)
}

// membership is the provider a member runs, with what Start needs to
// know of it.
type membership struct {
	provider protocluster.ClusterProvider
	// remoteHost and remotePort are where the actor remote binds.
	remoteHost string
	remotePort int
	// health is the automanaged provider's endpoint, bound by Start on
	// Listen itself (nil for a Registry).
	health *echo.Echo
}

// newMembership builds the provider cfg.Provider picks (cfg.validate
// has checked it). Under a Registry the actor remote binds Listen, which
// the registry advertises to the other members.
func newMembership(ctx context.Context, cfg *Config, system *actor.ActorSystem) (*membership, error) {
	host, port, err := cfg.listenAddr()
	if err != nil {
		return nil, err
	}
	r := cfg.Provider.Registry
	if r == nil {
		return newAutomanaged(cfg, system, host)
	}
	p, err := r.ClusterProvider(ctx)
	if err != nil {
		return nil, err
	}
	return &membership{provider: p, remoteHost: host, remotePort: port}, nil
}
