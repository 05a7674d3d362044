package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
)

// SessionKind is the virtual actor kind of a session: one grain per
// identity (SessionIdentity), holding one engine session.
const SessionKind = "mcp-session"

// registryName is the actor on every member that answers
// OwnedSessionsQuery.
const registryName = "mcpengine-sessions"

// SessionIdentity is the cluster identity of session name of server: it
// alone decides which member holds the session.
func SessionIdentity(server, name string) string { return server + "/" + name }

func splitIdentity(id string) (server, name string, ok bool) {
	return strings.Cut(id, "/")
}

// sessionHost is what a member keeps of the sessions it holds: its
// engine, the grains alive on it and the goroutines they started.
type sessionHost struct {
	m      *Member
	engine *mcpengine.Engine

	mu    sync.Mutex
	owned map[string]*actor.PID
	// closing holds, per identity, a channel closed once the session of
	// a stopped grain has closed, so that the identity's next grain on
	// this member does not meet the old session's name in the engine.
	closing map[string]chan struct{}
	// wg counts the grains' goroutines (session owners, calls).
	wg sync.WaitGroup
	// calls counts the calls the member's sessions are running;
	// activations the grains activated here since the start.
	calls       atomic.Int64
	activations atomic.Int64
	// leaving is set when Close begins: a grain activated here after that
	// (by a member whose topology still lists this one) holds no session
	// and answers "moved", so the caller resends once its topology
	// dropped this member.
	leaving atomic.Bool

	registry *actor.PID
}

func newSessionHost(m *Member) *sessionHost {
	return &sessionHost{
		m:       m,
		engine:  mcpengine.New(m.cfg.Engine),
		owned:   map[string]*actor.PID{},
		closing: map[string]chan struct{}{},
	}
}

func (h *sessionHost) kind() *protocluster.Kind {
	return protocluster.NewKind(SessionKind, actor.PropsFromProducer(func() actor.Actor {
		return &sessionGrain{host: h}
	}))
}

// start spawns the registry actor; the actor system stops it.
func (h *sessionHost) start() error {
	pid, err := h.m.system.Root.SpawnNamed(actor.PropsFromFunc(h.receiveRegistry), registryName)
	if err != nil {
		return fmt.Errorf("cluster: sessions registry: %w", err)
	}
	h.registry = pid
	return nil
}

func (h *sessionHost) receiveRegistry(ctx actor.Context) {
	if _, ok := ctx.Message().(*clusterpb.OwnedSessionsQuery); ok {
		ctx.Respond(&clusterpb.OwnedSessions{Member: h.m.system.Address(), Identities: h.ownedIdentities()})
	}
}

func (h *sessionHost) ownedIdentities() []string {
	h.mu.Lock()
	ids := make([]string, 0, len(h.owned))
	for id := range h.owned {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	slices.Sort(ids)
	return ids
}

func (h *sessionHost) ownedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.owned)
}

func (h *sessionHost) ownedMap() map[string]*actor.PID {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.owned)
}

// register records a grain that became live. It returns the channel of
// its identity's previous session on this member, closed once that one
// has closed (nil if none), and the channel of its own.
func (h *sessionHost) register(id string, pid *actor.PID) (prev <-chan struct{}, closed chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.owned[id] = pid
	h.activations.Add(1)
	prev = h.closing[id]
	closed = make(chan struct{})
	h.closing[id] = closed
	return prev, closed
}

// forget drops a stopping grain from the owned table.
func (h *sessionHost) forget(id string, pid *actor.PID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.owned[id]; ok && p.Equal(pid) {
		delete(h.owned, id)
	}
}

// closedSession is called once the session of a grain has closed.
func (h *sessionHost) closedSession(id string, closed chan struct{}) {
	h.mu.Lock()
	if h.closing[id] == closed {
		delete(h.closing, id)
	}
	h.mu.Unlock()
	close(closed)
}

// server is the configuration of the named server of the member's table.
func (h *sessionHost) server(name string) (mcpengine.ServerConfig, error) {
	sc, ok := h.m.cfg.Servers[name]
	if !ok {
		return sc, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return sc, nil
}

// close waits for the grains' goroutines (the actor system has stopped
// the grains, which cancelled them) and closes the engine.
func (h *sessionHost) close(ctx context.Context) error {
	done := make(chan struct{})
	// Owned by close: ends when every grain goroutine has.
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := h.engine.Close(ctx)
	if errors.Is(err, mcpengine.ErrEngineClosed) {
		err = nil
	}
	return err
}
