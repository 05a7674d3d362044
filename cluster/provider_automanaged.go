package cluster

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/labstack/echo"
)

// newAutomanaged builds the default provider, which polls the health
// endpoints of the static host list in cfg.Join. It listens on a server
// of our own making: protoactor would bind 0.0.0.0:PORT itself, but it
// serves a listener already set on its server, so the health endpoint
// binds exactly Listen (and Listen's port may be 0 in tests).
func newAutomanaged(cfg *Config, system *actor.ActorSystem, host string) (*membership, error) {
	ln := cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return nil, fmt.Errorf("cluster: membership listener: %w", err)
		}
	}
	port := ln.Addr().(*net.TCPAddr).Port
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
}
