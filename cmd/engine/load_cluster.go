package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed"
)

// Every engine worker runs a load worker: it advertises the kind, and
// runWorker starts the worker actor (startLoadWorker).
func init() { workerKinds = append(workerKinds, distributed.ClusterKind) }

// startLoadWorker runs the load worker on a member; stop before the
// member leaves.
func startLoadWorker(m *cluster.Member, stderr io.Writer, log *slog.Logger) (stop func(), err error) {
	w, err := distributed.StartWorker(m.Cluster().ActorSystem, loadMemberConfig(stderr), log)
	if err != nil {
		return nil, err
	}
	return w.Stop, nil
}

// loadMembersWait bounds how long a coordinator waits for the members it
// was told to join to show up with their load workers.
const loadMembersWait = 30 * time.Second

// loadCluster is a coordinator's membership: it joins the cluster as a
// member offering nothing, to see the members and be reachable by them.
type loadCluster struct {
	m    *cluster.Member
	ms   *distributed.Membership
	want int // members named in --join
}

// joinLoadCluster joins the cluster whose members' membership addresses
// join lists; listen is where this coordinator is reached (its host must
// be reachable from every member: they send their reports to it).
func joinLoadCluster(ctx context.Context, join, listen string, log *slog.Logger) (*loadCluster, error) {
	hosts := splitList(join)
	if len(hosts) == 0 {
		return nil, usagef("--join: give the members' addresses, HOST:PORT[,HOST:PORT...]")
	}
	m, err := cluster.Start(ctx, cluster.Config{Listen: listen, Join: hosts, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("joining the cluster at %s: %w", join, err)
	}
	ms := distributed.WatchMembership(m.Cluster().ActorSystem)
	var seed []string
	for _, mi := range m.Members() {
		if slices.Contains(mi.Kinds, distributed.Kind) {
			seed = append(seed, mi.Address)
		}
	}
	ms.Seed(seed)
	return &loadCluster{m: m, ms: ms, want: len(hosts)}, nil
}

// loadMembers waits until every member --join names runs a load worker
// (at most loadMembersWait), and returns those there are.
func (c *loadCluster) loadMembers(ctx context.Context, stderr io.Writer) ([]string, error) {
	wctx, cancel := context.WithTimeout(ctx, loadMembersWait)
	defer cancel()
	got := c.ms.Wait(wctx, c.want)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case len(got) == 0:
		return nil, fmt.Errorf("no load worker joined the cluster within %v: are the engine workers running, and --join their --listen addresses?", loadMembersWait)
	case len(got) < c.want:
		fmt.Fprintf(stderr, "load: %d of the %d members named in --join run a load worker after %v; running on those\n", len(got), c.want, loadMembersWait)
	}
	return got, nil
}

func (c *loadCluster) system() *actor.ActorSystem { return c.m.Cluster().ActorSystem }

func (c *loadCluster) left() <-chan string { return c.ms.Left() }

// stop leaves the cluster (protoactor's graceful leave takes about 2 s;
// the coordinator holds nothing, so it waits at most 5).
func (c *loadCluster) stop() {
	c.ms.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.m.Close(ctx)
}
