package mcpengine

import (
	"slices"
	"strings"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// Stats is a snapshot of a session's counters, taken by Session.Stats.
// Each counter is read atomically on its own; the snapshot as a whole is
// not one instant (a frame may be counted in FramesIn and its request not
// yet in Requests). Counters cover the session's whole life, across
// reconnects.
type Stats struct {
	// FramesIn counts the frames received (a batch is one frame).
	FramesIn uint64
	// FramesReadByCallers counts the frames of FramesIn that a caller
	// waiting for its answer read on its own goroutine rather than the
	// connection's reader goroutine (stdio and memory connections).
	FramesReadByCallers uint64
	// FramesOut counts the frames sent.
	FramesOut uint64
	// InvalidFrames counts frames (or batch members) that were not valid
	// JSON-RPC: dropped, except that a broken answer with a recognisable
	// id fails its request with a *ProtocolError.
	InvalidFrames uint64
	// InvalidUTF8Frames counts frames accepted although their strings held
	// invalid UTF-8, each bad sequence replaced by U+FFFD (the JSON is
	// otherwise valid; dropping it would leave its caller waiting).
	InvalidUTF8Frames uint64
	// LateResponses counts answers to requests no longer pending (timed
	// out, cancelled) or never sent.
	LateResponses uint64
	// Restarts counts reconnects scheduled after a failed connection (and
	// restarts of the session's actor after a panic).
	Restarts uint64
	// Requests counts the requests handed to the session: sent, queued
	// or refused.
	Requests uint64
	// Timeouts counts requests that got no answer before their deadline.
	Timeouts uint64
	// CallbacksDropped counts notifications, progress and state events not
	// delivered because the session's callback queue was full (a callback
	// that never returns).
	CallbacksDropped uint64
	// LocalResourceFailures counts requests and connections that failed
	// because this process ran out of descriptors or buffer memory
	// (*LocalResourceError).
	LocalResourceFailures uint64
	// Queued is the number of calls waiting, now, for the session to be
	// ready.
	Queued int64
}

func statsOf(s *actors.Stats) Stats {
	return Stats{
		FramesIn:              s.FramesIn.Load(),
		FramesReadByCallers:   s.FramesReadByCallers.Load(),
		FramesOut:             s.FramesOut.Load(),
		InvalidFrames:         s.InvalidFrames.Load(),
		InvalidUTF8Frames:     s.InvalidUTF8Frames.Load(),
		LateResponses:         s.LateResponses.Load(),
		Restarts:              s.Restarts.Load(),
		Requests:              s.Requests.Load(),
		Timeouts:              s.Timeouts.Load(),
		CallbacksDropped:      s.CallbacksDropped.Load(),
		LocalResourceFailures: s.LocalResourceFailures.Load(),
		Queued:                s.Queued.Load(),
	}
}

// HTTPStats is a snapshot of the connection pool the engine keeps for one
// HTTP server (origin, TLS settings, protocol choice, cap), shared by all
// the sessions that reach it. Each counter is read on its own.
type HTTPStats struct {
	// Origin is the server's scheme://host:port, as configured.
	Origin string
	// MaxConnections is the cap on connections carrying calls
	// (ServerConfig.MaxConnections); 0 means none.
	MaxConnections int
	// Connections is the number of connections open to the server now,
	// standing streams' included.
	Connections int64
	// Dials counts the connections made to the server.
	Dials uint64
	// ConnectionWaits counts the HTTP/1.1 calls that found the cap's
	// connections all taken and waited for one to come free.
	ConnectionWaits uint64
	// Waiting is the number of HTTP/1.1 calls waiting for a connection
	// now.
	Waiting int64
}

// HTTPStats returns a snapshot of every HTTP connection pool the engine
// built, one per server, sorted by origin. A server reached through
// Config.HTTPClient has none: that client is the application's.
func (e *Engine) HTTPStats() []HTTPStats {
	e.httpMu.Lock()
	defer e.httpMu.Unlock()
	out := make([]HTTPStats, 0, len(e.httpClients))
	for key, c := range e.httpClients {
		p, ok := httpx.StatsOf(c)
		if !ok {
			continue
		}
		out = append(out, HTTPStats{
			Origin:          key.origin,
			MaxConnections:  p.MaxConnsPerHost,
			Connections:     p.Conns,
			Dials:           p.Dials,
			ConnectionWaits: p.Waited,
			Waiting:         p.Waiting,
		})
	}
	slices.SortFunc(out, func(a, b HTTPStats) int { return strings.Compare(a.Origin, b.Origin) })
	return out
}
