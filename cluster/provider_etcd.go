package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdDialTimeout bounds how long Start waits for etcd to answer.
const etcdDialTimeout = 5 * time.Second

// ErrEtcdUnreachable: Start with the etcd provider got no answer from
// any of Provider.EtcdEndpoints within 5 s (or before its context ended).
var ErrEtcdUnreachable = errors.New("cluster: etcd did not answer")

// newEtcdProvider builds protoactor's etcd provider after asking etcd
// once, with a deadline, for the members' prefix. protoactor's provider
// makes its requests with no deadline, and the etcd client retries an
// endpoint that does not answer for as long as it is asked to: without
// the question first, a member given a wrong endpoint (or started before
// etcd) would wait in Start forever, saying nothing and deaf to its
// context.
func newEtcdProvider(ctx context.Context, cfg *Config) (*etcd.Provider, error) {
	eps := cfg.Provider.EtcdEndpoints
	if len(eps) == 0 {
		eps = []string{"127.0.0.1:2379"}
	}
	base := cfg.Provider.EtcdBaseKey
	if base == "" {
		base = "/protoactor"
	}
	ccfg := clientv3.Config{Endpoints: eps, DialTimeout: etcdDialTimeout}
	if err := etcdAnswers(ctx, ccfg, base); err != nil {
		return nil, fmt.Errorf("%w at %s: %w", ErrEtcdUnreachable, strings.Join(eps, ","), err)
	}
	p, err := etcd.NewWithConfig(base, ccfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd provider: %w", err)
	}
	return p, nil
}

// etcdAnswers asks etcd how many keys lie under prefix. Its client logs
// nothing: the error it returns says what went wrong.
func etcdAnswers(ctx context.Context, ccfg clientv3.Config, prefix string) error {
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
