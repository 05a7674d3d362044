package gateway

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster"
	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// URL paths of the gateway's handler.
const (
	// PathMCP is the aggregated Streamable HTTP MCP endpoint.
	PathMCP = "/mcp"
	// PathSSE and PathMessage are the aggregated endpoint over the legacy
	// HTTP+SSE transport (2024-11-05): the stream, and the messages.
	PathSSE     = "/sse"
	PathMessage = "/message"
	// PathRoute is the routing protocol endpoint (POST with server_id).
	PathRoute = "/rpc"
	// PathHealth reports the upstream sessions' states.
	PathHealth = "/healthz"
	// PathMetrics serves Prometheus metrics.
	PathMetrics = "/metrics"
)

// Gateway is one endpoint in front of many MCP servers. It holds a pool of
// supervised engine sessions per server and serves, on one http.Handler,
// the aggregated MCP endpoint (PathMCP), the routing protocol (PathRoute),
// health (PathHealth) and metrics (PathMetrics). All methods are safe for
// concurrent use.
type Gateway struct {
	cfg       Config
	log       *slog.Logger
	version   string
	eng       *mcpengine.Engine
	servers   map[string]*upstream
	order     []*upstream // by name
	byPrefix  []*upstream // longest prefix first
	auth      *authenticator
	fronts    *fronts
	suspended mcpserver.Table[*suspension] // 2026-07-28 requests waiting for their clients' input, by requestState
	metrics   *metrics
	audit     *auditLog
	mux       *http.ServeMux
	handler   http.Handler // mux behind the guard (Host, Origin, body deadline)
	progress  progressTokens

	// member is the gateway's place in its cluster (Config.Cluster), nil
	// without one; slots are its pool slots by cluster identity.
	member  *cluster.Member
	slotsMu sync.Mutex
	slots   map[string]*member
	// bg counts the gateway's background goroutines (resubscribe), which
	// end once bgCtx ends (Close).
	bg       sync.WaitGroup
	bgCtx    context.Context
	bgCancel context.CancelFunc

	mu        sync.Mutex
	listeners []*HTTPServer
	closed    bool
}

// New starts a gateway: it checks cfg, opens the audit log and starts
// every server's sessions, which connect in the background (WaitReady
// waits for them). ctx bounds only the start.
func New(ctx context.Context, cfg Config) (_ *Gateway, err error) {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &Gateway{
		cfg:     cfg,
		log:     cfg.Logger,
		version: cmp.Or(cfg.Version, buildVersion()),
		servers: map[string]*upstream{},
		mux:     http.NewServeMux(),
	}
	g.bgCtx, g.bgCancel = context.WithCancel(context.Background())
	g.fronts = newFronts(g)
	if g.metrics, err = newMetrics(); err != nil {
		return nil, err
	}
	if g.audit, err = openAudit(cfg.Audit, g.log.Warn); err != nil {
		_ = g.metrics.shutdown(ctx)
		return nil, err
	}
	ec := cfg.Engine
	ec.Sampling, ec.Elicitation, ec.Roots = nil, nil, nil
	if ec.Logger == nil {
		ec.Logger = cfg.Logger
	}
	if ec.ClientInfo.Name == "" {
		ec.ClientInfo = messages.Implementation{Name: serverInfoName, Version: g.version}
	}
	if ec.Telemetry.Meter == nil {
		ec.Telemetry.Meter = g.metrics.mp
	}
	if ec.RestartBudget == 0 {
		// The engine gives up after a few failures that rarely fix
		// themselves (a command that cannot start, a version it cannot
		// speak). A gateway runs for long and its servers get fixed or
		// installed meanwhile: it keeps trying, at the capped backoff.
		ec.RestartBudget = math.MaxInt32
	}
	// For the same reason a server not reachable yet when the gateway
	// starts is waited for, not given up on at the first connect.
	ec.RetryInitialConnect = true
	g.eng = mcpengine.New(ec)
	if cfg.Cluster != nil {
		if err := g.startCluster(ctx, ec); err != nil {
			_ = g.eng.Close(ctx)
			_ = g.metrics.shutdown(ctx)
			_ = g.audit.close()
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = g.closeCluster(cctx)
			_ = g.eng.Close(cctx)
			_ = g.metrics.shutdown(cctx)
			_ = g.audit.close()
		}
	}()
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		u, err := g.openUpstream(ctx, name, cfg.Servers[name])
		if err != nil {
			return nil, err
		}
		g.servers[name] = u
		g.order = append(g.order, u)
	}
	g.byPrefix = byPrefix(g.order)
	if g.auth, err = g.principals(); err != nil {
		return nil, err
	}
	if err := g.metrics.observeUpstream(g); err != nil {
		return nil, err
	}
	g.mux.HandleFunc(PathMCP, g.serveMCP)
	g.mux.HandleFunc(PathSSE, g.serveSSE)
	g.mux.HandleFunc(PathMessage, g.serveMessage)
	g.mux.HandleFunc(PathRoute, g.serveRoute)
	g.mux.HandleFunc(PathHealth, g.serveHealth)
	g.mux.HandleFunc(PathMetrics, g.serveMetrics)
	guard := &httpserve.Guard{AllowedHosts: cfg.AllowedHosts, AllowedOrigins: cfg.AllowedOrigins, BodyTimeout: cfg.BodyTimeout}
	g.handler = guard.Wrap(g.mux)
	return g, nil
}

// principals builds every client's access to every server from the
// policies: a layer per server, per client and per client and server.
func (g *Gateway) principals() (*authenticator, error) {
	a := &authenticator{anonymous: &principal{name: anonymousName, access: map[string]*access{}}}
	for _, u := range g.order {
		a.anonymous.access[u.name] = newAccess(u.layer)
	}
	for _, c := range g.cfg.Clients {
		cp, err := compilePolicy(c.Policy)
		if err != nil {
			return nil, err
		}
		cl := newLayer("client "+strconv.Quote(c.Name), cp)
		p := &principal{name: c.Name, hash: sha256.Sum256([]byte(c.Token)), access: map[string]*access{}}
		for _, u := range g.order {
			var per *layer
			if sp, ok := c.Servers[u.name]; ok {
				csp, err := compilePolicy(sp)
				if err != nil {
					return nil, err
				}
				per = newLayer(fmt.Sprintf("client %q for server %q", c.Name, u.name), csp)
			}
			p.access[u.name] = newAccess(u.layer, cl, per)
		}
		a.clients = append(a.clients, p)
	}
	return a, nil
}

// Handler serves every endpoint of the gateway. Every request passes the
// guard first (httpserve.Guard): its Host and Origin, refused with 403
// before anything else, and a deadline for its body.
func (g *Gateway) Handler() http.Handler { return g.handler }

// WaitReady waits until every server has a ready session, or ctx ends.
func (g *Gateway) WaitReady(ctx context.Context) error {
	for _, u := range g.order {
		for {
			changed := u.pool.changedCh()
			if u.pool.ready() > 0 {
				break
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return fmt.Errorf("gateway: server %q not ready: %w", u.name, errors.Join(ctx.Err(), u.lastError()))
			}
		}
	}
	return nil
}

// Close ends the client sessions, stops the listeners the gateway started
// (Listen), closes every upstream session (stopping stdio servers), and
// flushes the audit log, all within ctx.
func (g *Gateway) Close(ctx context.Context) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	listeners := g.listeners
	g.mu.Unlock()
	g.fronts.closeAll()
	g.endSuspensions()
	var errs []error
	for _, l := range listeners {
		errs = append(errs, l.Close(ctx))
	}
	g.bgCancel()
	errs = append(errs, g.closeCluster(ctx))
	g.bg.Wait()
	errs = append(errs, g.eng.Close(ctx), g.metrics.shutdown(ctx), g.audit.close())
	return errors.Join(errs...)
}

// buildVersion is the module version the binary was built from.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
