package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/consul"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/k8s"
	"github.com/hashicorp/consul/api"
	"github.com/labstack/echo"
)

// membership is the provider a member runs, with what Start needs to
// know of it.
type membership struct {
	provider protocluster.ClusterProvider
	// remoteHost and remotePort are where the actor remote binds.
	remoteHost string
	remotePort int
	// health is the automanaged provider's endpoint, bound by Start on
	// Listen itself (nil for the other providers).
	health *echo.Echo
}

// newMembership builds the provider cfg.Provider names (cfg.validate
// has checked it). The automanaged
// provider listens on a server of our own making: protoactor would bind
// 0.0.0.0:PORT itself, but it serves a listener already set on its
// server, so the health endpoint binds exactly Listen (and Listen's port
// may be 0 in tests).
func newMembership(ctx context.Context, cfg *Config, system *actor.ActorSystem) (*membership, error) {
	host, port, err := cfg.listenAddr()
	if err != nil {
		return nil, err
	}
	switch cfg.Provider.Kind {
	case "", ProviderAutomanaged:
		ln := cfg.Listener
		if ln == nil {
			if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
				return nil, fmt.Errorf("cluster: membership listener: %w", err)
			}
		}
		port = ln.Addr().(*net.TCPAddr).Port
		self := net.JoinHostPort(host, strconv.Itoa(port))
		hosts := []string{self}
		for _, j := range cfg.Join {
			if j != self && j != cfg.Listen {
				hosts = append(hosts, j)
			}
		}
		e := echo.New()
		e.HideBanner, e.HidePort = true, true
		e.Listener = ln
		ttl := cfg.Provider.RefreshTTL
		if ttl <= 0 {
			ttl = time.Second
		}
		p := automanaged.NewWithTesting(ttl, port, e, hosts...)
		e.GET("/_health", func(c echo.Context) error {
			// What protoactor's own endpoint answers: this member's id,
			// remote address and kinds, read when asked since the remote
			// address is known only once it started.
			rh, rp, err := system.GetHostPort()
			if err != nil {
				return c.NoContent(http.StatusServiceUnavailable)
			}
			cl := protocluster.GetCluster(system)
			return c.JSON(http.StatusOK, automanaged.NewNode(cfg.name(), system.ID, rh, rp, port, cl.GetClusterKinds()))
		})
		return &membership{provider: p, remoteHost: host, remotePort: cfg.RemotePort, health: e}, nil
	case ProviderConsul:
		cc := &api.Config{Address: cfg.Provider.ConsulAddress}
		p, err := consul.NewWithConfig(cc)
		if err != nil {
			return nil, fmt.Errorf("cluster: consul provider: %w", err)
		}
		return &membership{provider: p, remoteHost: host, remotePort: port}, nil
	case ProviderEtcd:
		p, err := newEtcdProvider(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return &membership{provider: p, remoteHost: host, remotePort: port}, nil
	case ProviderK8s:
		p, err := k8s.New()
		if err != nil {
			return nil, fmt.Errorf("cluster: kubernetes provider (runs only inside a pod): %w", err)
		}
		return &membership{provider: p, remoteHost: host, remotePort: port}, nil
	}
	return nil, fmt.Errorf("%w: provider %q: use automanaged, consul, etcd or k8s", errConfig, cfg.Provider.Kind)
}
