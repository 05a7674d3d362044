package gateway

import (
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/messages"
)

// Health is what /healthz reports.
type Health struct {
	// Status is "ok" when every server has a ready session, "degraded"
	// when some have none, "down" when none has.
	Status  string                  `json:"status"`
	Servers map[string]ServerHealth `json:"servers"`
	// ClientSessions counts the aggregated endpoint's open sessions.
	ClientSessions int `json:"clientSessions"`
	// Cluster is the gateway's cluster membership (Config.Cluster).
	Cluster *ClusterHealth `json:"cluster,omitempty"`
}

// ClusterHealth is a cluster gateway's membership.
type ClusterHealth struct {
	// Address is this member's actor remote address; Members every
	// member's, this one included.
	Address string   `json:"address"`
	Members []string `json:"members"`
}

// ServerHealth is one server's pool.
type ServerHealth struct {
	Ready    int             `json:"ready"`
	Pool     int             `json:"pool"`
	Sessions []SessionHealth `json:"sessions"`
}

// SessionHealth is one upstream session.
type SessionHealth struct {
	Name            string `json:"name"`
	State           string `json:"state"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// InFlight counts the gateway's requests in flight on it; Requests
	// those it sent since it started.
	InFlight int64  `json:"inFlight"`
	Requests uint64 `json:"requests"`
	// Restarts counts the session's reconnects (and server restarts).
	Restarts  uint64 `json:"restarts"`
	LastError string `json:"lastError,omitempty"`
	// Owner is the cluster member holding a cluster session.
	Owner string `json:"owner,omitempty"`
}

// Health reports every upstream session's state.
func (g *Gateway) Health() Health {
	h := Health{Servers: map[string]ServerHealth{}, ClientSessions: len(g.fronts.all())}
	if g.member != nil {
		ch := &ClusterHealth{Address: g.member.Address()}
		for _, mi := range g.member.Members() {
			ch.Members = append(ch.Members, mi.Address)
		}
		h.Cluster = ch
	}
	up := 0
	for _, u := range g.order {
		sh := ServerHealth{Pool: len(u.pool.members)}
		for _, m := range u.pool.members {
			s := SessionHealth{
				Name:            m.s.Name(),
				State:           m.s.State().String(),
				ProtocolVersion: m.s.ProtocolVersion(),
				InFlight:        m.load.Load(),
				Requests:        m.calls.Load(),
				Restarts:        m.s.restarts(),
				Owner:           m.s.owner(),
			}
			if err := m.s.LastError(); err != nil {
				s.LastError = err.Error()
			}
			if s.State == "ready" {
				sh.Ready++
			}
			sh.Sessions = append(sh.Sessions, s)
		}
		if sh.Ready > 0 {
			up++
		}
		h.Servers[u.name] = sh
	}
	switch up {
	case len(g.order):
		h.Status = "ok"
	case 0:
		h.Status = "down"
	default:
		h.Status = "degraded"
	}
	return h
}

// serveHealth answers 200 when every server is up and 503 otherwise, with
// the Health as JSON. Health and metrics name the servers and their
// errors: they are open to loopback clients and to clients with a token.
func (g *Gateway) serveHealth(w http.ResponseWriter, r *http.Request) {
	if !g.mayObserve(w, r) {
		return
	}
	h := g.Health()
	body, err := messages.Marshal(&h)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if h.Status != "ok" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_, _ = w.Write(append(body, '\n'))
}

func (g *Gateway) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if !g.mayObserve(w, r) {
		return
	}
	g.metrics.handler.ServeHTTP(w, r)
}

// mayObserve lets loopback clients and authenticated ones see health and
// metrics, answering the refusal itself.
func (g *Gateway) mayObserve(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return false
	}
	if httpserve.LoopbackPeer(r) {
		return true
	}
	if _, aerr := g.auth.authenticate(r); aerr != nil {
		writeAuthError(w, r, aerr)
		return false
	}
	return true
}
