package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/messages"
)

// clusterSession is a pool slot held as a cluster session (identity
// SERVER/pool-N, the same on every gateway of the cluster): calls go to
// the member that owns it, and a Watcher keeps its state, initialize
// result and notifications here.
type clusterSession struct {
	rs *cluster.RemoteSession
	// w is set once every slot of the server exists (openClusterSlots);
	// until then the session is connecting.
	w atomic.Pointer[cluster.Watcher]
	// lastOwner is the owner last heard of; only the watcher's actor
	// (clusterStateChanged) touches it.
	lastOwner string
	// moves counts the owner changes heard of: a resubscription made for
	// one move gives up once a later one starts its own.
	moves atomic.Uint64
}

// clusterSessionName is a pool slot's session name: every gateway of a
// cluster names slot i of a server alike, so they share it.
func clusterSessionName(i int) string { return fmt.Sprintf("pool-%d", i) }

func (s *clusterSession) Name() string { return s.rs.Identity() }

// status is the session's state as its watcher last heard it.
func (s *clusterSession) status() cluster.Status {
	if w := s.w.Load(); w != nil {
		return w.Status()
	}
	return cluster.Status{State: cluster.StateUnreachable}
}

func (s *clusterSession) State() mcpengine.State {
	switch s.status().State {
	case mcpengine.StateReady.String():
		return mcpengine.StateReady
	case mcpengine.StateInitializing.String():
		return mcpengine.StateInitializing
	case mcpengine.StateBackoff.String():
		return mcpengine.StateBackoff
	}
	// Connecting, or no owner answered yet (a hand-over under way): the
	// pool waits for it rather than failing at once. A grain whose
	// session closed is activated again by the watch's next renewal.
	return mcpengine.StateConnecting
}

func (s *clusterSession) LastError() error {
	if e := s.status().LastError; e != "" {
		return errors.New(e)
	}
	return nil
}

func (s *clusterSession) restarts() uint64 { return s.status().Restarts }

func (s *clusterSession) owner() string { return s.status().Owner }

// initialize is the server's initialize result as the owner reported it.
func (s *clusterSession) initialize() messages.InitializeResult {
	var r messages.InitializeResult
	if raw := s.status().Initialize; len(raw) > 0 {
		_ = messages.Unmarshal(raw, &r)
	}
	return r
}

func (s *clusterSession) ProtocolVersion() string { return s.initialize().ProtocolVersion }

func (s *clusterSession) Capabilities() messages.ServerCapabilities {
	return s.initialize().Capabilities
}

func (s *clusterSession) ServerInfo() messages.Implementation { return s.initialize().ServerInfo }

func (s *clusterSession) Instructions() string { return s.initialize().Instructions }

func (s *clusterSession) call(ctx context.Context, method string, params any, progress func(messages.ProgressParams), servesRequests bool) (messages.RawMessage, error) {
	raw, err := rawParams(params)
	if err != nil {
		return nil, err
	}
	o := cluster.CallOptions{ServesRequests: servesRequests}
	if progress != nil {
		o.Progress = func(p json.RawMessage) {
			var pp messages.ProgressParams
			if messages.Unmarshal(p, &pp) == nil {
				progress(pp)
			}
		}
	}
	res, err := s.rs.CallWith(ctx, method, raw, o)
	if errors.Is(err, mcpengine.ErrConnectionLost) {
		// The owner died or stopped the session: learn the new one now
		// rather than at the next renewal.
		if w := s.w.Load(); w != nil {
			w.Renew()
		}
	}
	return res, err
}

func (s *clusterSession) Notify(ctx context.Context, method string, params any) error {
	raw, err := rawParams(params)
	if err != nil {
		return err
	}
	return s.rs.Notify(ctx, method, raw)
}

func (s *clusterSession) Subscribe(ctx context.Context, uri string) error {
	return s.subscription(ctx, messages.MethodResourcesSubscribe, uri)
}

func (s *clusterSession) Unsubscribe(ctx context.Context, uri string) error {
	return s.subscription(ctx, messages.MethodResourcesUnsubscribe, uri)
}

func (s *clusterSession) subscription(ctx context.Context, method, uri string) error {
	raw, err := messages.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return err
	}
	_, err = s.rs.CallWith(ctx, method, raw, cluster.CallOptions{})
	return err
}

func rawParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case messages.RawMessage:
		return p, nil
	}
	return messages.Marshal(params)
}
