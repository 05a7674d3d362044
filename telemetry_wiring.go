package mcpengine

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/telemetry"
)

// startTelemetry builds the instrumentation when the config sets a
// provider, and registers the observable instruments, which read the
// sessions' counters when a reader collects and cost nothing in between.
func (e *Engine) startTelemetry() {
	tel, err := telemetry.New(e.cfg.Telemetry, e.cfg.TelemetryOptions)
	if err != nil {
		e.cfg.Logger.Warn("telemetry disabled: creating instruments failed", "error", err)
		return
	}
	if tel == nil {
		return
	}
	e.tel = tel
	m := tel.Meter()
	sessions, err1 := m.Int64ObservableGauge(telemetry.MetricSessions,
		metric.WithDescription("Sessions by lifecycle state."), metric.WithUnit("{session}"))
	invalid, err2 := m.Int64ObservableCounter(telemetry.MetricInvalidFrames,
		metric.WithDescription("Received frames discarded as invalid JSON-RPC or MCP."), metric.WithUnit("{frame}"))
	queued, err3 := m.Int64ObservableGauge(telemetry.MetricQueueDepth,
		metric.WithDescription("Calls waiting for a session to become ready."), metric.WithUnit("{call}"))
	local, err4 := m.Int64ObservableCounter(telemetry.MetricLocalResourceFailures,
		metric.WithDescription("Requests and dials that failed because this process ran out of descriptors or buffer memory."), metric.WithUnit("{failure}"))
	conns, err5 := m.Int64ObservableGauge(telemetry.MetricHTTPConnections,
		metric.WithDescription("Connections open to an HTTP server."), metric.WithUnit("{connection}"))
	limit, err6 := m.Int64ObservableGauge(telemetry.MetricHTTPConnectionLimit,
		metric.WithDescription("The cap on connections carrying calls to an HTTP server (0: none)."), metric.WithUnit("{connection}"))
	waits, err7 := m.Int64ObservableCounter(telemetry.MetricHTTPConnectionWaits,
		metric.WithDescription("HTTP/1.1 calls that found every connection the cap allows taken and waited for one."), metric.WithUnit("{call}"))
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7); err != nil {
		e.cfg.Logger.Warn("telemetry: observable instruments unavailable")
		return
	}
	reg, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		byState := map[State]int64{}
		var frames, waiting, exhausted int64
		for _, s := range e.Sessions() {
			byState[s.State()]++
			st := s.sh.Stats()
			frames += int64(st.InvalidFrames.Load())
			waiting += st.Queued.Load()
			exhausted += int64(st.LocalResourceFailures.Load())
		}
		for _, st := range []State{StateConnecting, StateInitializing, StateReady, StateBackoff, StateClosed} {
			o.ObserveInt64(sessions, byState[st], metric.WithAttributes(attribute.String("mcpengine.session.state", st.String())))
		}
		o.ObserveInt64(invalid, frames)
		o.ObserveInt64(queued, waiting)
		o.ObserveInt64(local, exhausted)
		for _, p := range httpPoolsByOrigin(e.HTTPStats()) {
			attrs := metric.WithAttributeSet(p.attrs)
			o.ObserveInt64(conns, p.Connections, attrs)
			o.ObserveInt64(limit, int64(p.MaxConnections), attrs)
			o.ObserveInt64(waits, int64(p.ConnectionWaits), attrs)
		}
		return nil
	}, sessions, invalid, queued, local, conns, limit, waits)
	if err == nil {
		e.observeMetric = reg
	}
}

func (e *Engine) stopTelemetry() {
	if e.observeMetric != nil {
		_ = e.observeMetric.Unregister()
	}
}

// traceCall starts c's span and puts its trace context into c's params.
func (s *Session) traceCall(ctx context.Context, tel *telemetry.Telemetry, c *actors.Call) {
	version, sid := "", ""
	if n := s.sh.Negotiated(); n != nil {
		version, sid = n.ProtocolVersion, s.sh.TransportSessionID()
	}
	var peer telemetry.Peer
	if s.peer != nil {
		peer = *s.peer
	}
	span, params := tel.StartCall(ctx, peer, version, sid, c.Method, c.Params)
	c.Span, c.Params = span, params
}

// peer describes the session's server for telemetry.
// sessionPeer is the session's telemetry.Peer, or nil when telemetry is
// off: only telemetry reads it, and a prepared one holds its attributes
// for the session's life (~250 B per idle session, 80 B more in each of
// Session and the actor's config even when empty).
func (e *Engine) sessionPeer(sc SessionConfig) *telemetry.Peer {
	if e.tel == nil {
		return nil
	}
	p := sc.peer()
	return &p
}

func (sc SessionConfig) peer() telemetry.Peer {
	p := telemetry.Peer{SessionName: sc.Name}
	// Server describes the target even when a Dialer wraps the connection
	// (the gateway does); a bare Dialer (memory pipes) says nothing.
	switch {
	case sc.Server.Command != "":
		p.Transport = mcpconv.NetworkTransportPipe
	case sc.Server.URL != "":
		p.Transport = mcpconv.NetworkTransportTCP
		if u, err := url.Parse(sc.Server.URL); err == nil {
			host, port := u.Hostname(), u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}[u.Scheme]
			}
			p.ServerAddress = host
			if n, err := strconv.Atoi(port); err == nil {
				p.ServerPort = n
			}
		}
	}
	return p.Prepare()
}

// httpPool is the HTTPStats of one origin for telemetry, with its
// attributes.
type httpPool struct {
	HTTPStats
	attrs attribute.Set
}

// httpPoolsByOrigin sums the pools of one origin (servers that differ
// only in TLS settings or cap have pools of their own): an instrument is
// observed once per attribute set.
func httpPoolsByOrigin(stats []HTTPStats) []httpPool {
	var out []httpPool
	for _, st := range stats {
		if n := len(out); n > 0 && out[n-1].Origin == st.Origin { // sorted by origin
			p := &out[n-1]
			p.Connections += st.Connections
			p.ConnectionWaits += st.ConnectionWaits
			p.MaxConnections = max(p.MaxConnections, st.MaxConnections)
			continue
		}
		attrs := []attribute.KeyValue{attribute.String("server.address", st.Origin)}
		if u, err := url.Parse(st.Origin); err == nil {
			attrs = []attribute.KeyValue{attribute.String("url.scheme", u.Scheme), attribute.String("server.address", u.Hostname())}
			if port, err := strconv.Atoi(u.Port()); err == nil {
				attrs = append(attrs, attribute.Int("server.port", port))
			}
		}
		out = append(out, httpPool{HTTPStats: st, attrs: attribute.NewSet(attrs...)})
	}
	return out
}
