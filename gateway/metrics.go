package gateway

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry/export"
)

// meterName identifies the gateway's instruments.
const meterName = "github.com/mcpengine/mcpengine/gateway"

// metrics are the gateway's instruments and the Prometheus registry that
// /metrics serves. The gateway's MeterProvider feeds that registry only;
// the engine holding the upstream sessions reports to it as well (unless
// the embedding application gave the engine a provider of its own), so one
// scrape shows the gateway's requests next to the engine's call durations
// and session states.
type metrics struct {
	mp      *sdkmetric.MeterProvider
	handler http.Handler

	requests metric.Int64Counter
	duration metric.Float64Histogram
	sessions metric.Int64UpDownCounter
}

func newMetrics() (*metrics, error) {
	// The same registry, collectors and handler as the CLI's --prometheus.
	reader, handler, err := export.NewPrometheusReader()
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	m := &metrics{
		mp:      sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
		handler: handler,
	}
	meter := m.mp.Meter(meterName)
	if m.requests, err = meter.Int64Counter("mcp.gateway.requests",
		metric.WithDescription("Requests forwarded (or refused) by the gateway, by server, method, client and outcome."),
		metric.WithUnit("{request}")); err != nil {
		return nil, err
	}
	if m.duration, err = meter.Float64Histogram("mcp.gateway.request.duration",
		metric.WithDescription("Time from a forwarded request's arrival at the gateway to its answer."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)); err != nil {
		return nil, err
	}
	if m.sessions, err = meter.Int64UpDownCounter("mcp.gateway.client.sessions",
		metric.WithDescription("Open sessions of the aggregated endpoint."),
		metric.WithUnit("{session}")); err != nil {
		return nil, err
	}
	return m, nil
}

// observeUpstream registers the gauge of upstream sessions by server and
// state, read at each scrape.
func (m *metrics) observeUpstream(g *Gateway) error {
	meter := m.mp.Meter(meterName)
	gauge, err := meter.Int64ObservableGauge("mcp.gateway.upstream.sessions",
		metric.WithDescription("Sessions to upstream servers, by server and state."),
		metric.WithUnit("{session}"))
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for _, u := range g.order {
			counts := map[mcpengine.State]int64{}
			for _, mem := range u.pool.members {
				counts[mem.s.State()]++
			}
			for _, st := range []mcpengine.State{mcpengine.StateConnecting, mcpengine.StateInitializing, mcpengine.StateReady, mcpengine.StateBackoff, mcpengine.StateClosed} {
				o.ObserveInt64(gauge, counts[st], metric.WithAttributes(attribute.String("server", u.name), attribute.String("state", st.String())))
			}
		}
		return nil
	}, gauge)
	return err
}

func (m *metrics) request(ctx context.Context, r *fwd, o outcome, d time.Duration) {
	ctx = context.WithoutCancel(ctx)
	method := r.method
	if !knownMethods[method] {
		method = "other" // the routing protocol forwards any method: keep the label set bounded
	}
	m.requests.Add(ctx, 1, metric.WithAttributes(
		attribute.String("server", r.srv.name), attribute.String("method", method),
		attribute.String("client", r.who.name), attribute.String("outcome", string(o))))
	m.duration.Record(ctx, d.Seconds(), metric.WithAttributes(
		attribute.String("server", r.srv.name), attribute.String("method", method), attribute.String("outcome", string(o))))
}

// knownMethods are the client requests of MCP (the method table's), the
// values of the method label.
var knownMethods = func() map[string]bool {
	m := map[string]bool{}
	for i := range messages.MethodTable {
		if spec := &messages.MethodTable[i]; spec.From&messages.FromClient != 0 && !spec.Notification {
			m[spec.Name] = true
		}
	}
	return m
}()

func (m *metrics) sessionsOpen(delta int64) { m.sessions.Add(context.Background(), delta) }

func (m *metrics) shutdown(ctx context.Context) error { return m.mp.Shutdown(ctx) }
