// Package etcd is the cluster's etcd membership provider: members
// register under a key prefix of an etcd cluster and watch it. Set
// cluster.Config.Provider.Registry to a Provider; a program that does not
// import this package links no etcd client.
package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	protoetcd "github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/mcpengine/mcpengine/cluster"
)

// dialTimeout bounds how long Start waits for etcd to answer.
const dialTimeout = 5 * time.Second

// ErrUnreachable: cluster.Start with this provider got no answer from any
// of Provider.Endpoints within 5 s (or before its context ended).
var ErrUnreachable = errors.New("cluster: etcd did not answer")

// Provider is protoactor's etcd provider, asked to answer first.
type Provider struct {
	// Endpoints are the etcd client endpoints (default 127.0.0.1:2379).
	Endpoints []string
	// BaseKey prefixes the member keys (default /protoactor).
	BaseKey string
}

var _ cluster.Registry = Provider{}

// Name is "etcd".
func (Provider) Name() string { return "etcd" }

// ClusterProvider builds protoactor's etcd provider after asking etcd
// once, with a deadline, for the members' prefix. protoactor's provider
// makes its requests with no deadline, and the etcd client retries an
// endpoint that does not answer for as long as it is asked to: without
// the question first, a member given a wrong endpoint (or started before
// etcd) would wait in Start forever, saying nothing and deaf to its
// context.
func (p Provider) ClusterProvider(ctx context.Context) (protocluster.ClusterProvider, error) {
	eps := p.Endpoints
	if len(eps) == 0 {
		eps = []string{"127.0.0.1:2379"}
	}
	base := p.BaseKey
	if base == "" {
		base = "/protoactor"
	}
	ccfg := clientv3.Config{Endpoints: eps, DialTimeout: dialTimeout}
	if err := answers(ctx, ccfg, base); err != nil {
		return nil, fmt.Errorf("%w at %s: %w", ErrUnreachable, strings.Join(eps, ","), err)
	}
	ep, err := protoetcd.NewWithConfig(base, ccfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd provider: %w", err)
	}
	return ep, nil
}

// answers asks etcd how many keys lie under prefix. Its client logs
// nothing: the error it returns says what went wrong.
func answers(ctx context.Context, ccfg clientv3.Config, prefix string) error {
	ccfg.Logger = zap.NewNop()
	c, err := clientv3.New(ccfg)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, ccfg.DialTimeout)
	defer cancel()
	_, err = c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	return err
}
