package report

import (
	"io"
	"sort"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// Prometheus writes the result in the Prometheus text exposition format,
// for a push gateway or a textfile collector. expfmt does the escaping of
// names, help and label values.
func Prometheus(w io.Writer, r *loadgen.Result) error {
	var fams []*dto.MetricFamily
	add := func(name, help string, typ dto.MetricType, ms ...*dto.Metric) {
		if len(ms) > 0 {
			fams = append(fams, &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: typ.Enum(), Metric: ms})
		}
	}

	var calls []*dto.Metric
	for _, m := range r.Methods {
		calls = append(calls, counter(float64(m.OK), "request", m.Name, "class", "ok"))
		for _, e := range ErrorClasses {
			calls = append(calls, counter(float64(m.Errors.Of(e.class)), "request", m.Name, "class", e.class.String()))
		}
	}
	add("mcpengine_load_calls_total", "Measured calls by request kind and outcome class.", dto.MetricType_COUNTER, calls...)

	codes := make([]string, 0, len(r.RPCCodes))
	for c := range r.RPCCodes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var rpc []*dto.Metric
	for _, c := range codes {
		rpc = append(rpc, counter(float64(r.RPCCodes[c]), "code", c))
	}
	add("mcpengine_load_rpc_errors_total", "JSON-RPC error answers by code.", dto.MetricType_COUNTER, rpc...)

	summaries := func(get func(m loadgen.MethodResult) loadgen.Latency) []*dto.Metric {
		var out []*dto.Metric
		for _, m := range r.Methods {
			out = append(out, summary(get(m), "request", m.Name))
		}
		return out
	}
	add("mcpengine_load_latency_seconds", "Call latency (open model: from the scheduled send time).", dto.MetricType_SUMMARY,
		summaries(func(m loadgen.MethodResult) loadgen.Latency { return m.Latency })...)
	add("mcpengine_load_service_seconds", "Call service time (from the actual send).", dto.MetricType_SUMMARY,
		summaries(func(m loadgen.MethodResult) loadgen.Latency { return m.Service })...)
	addFlows(r, add)

	add("mcpengine_load_calls_per_second", "Measured throughput.", dto.MetricType_GAUGE, gauge(r.CallsPerSecond))
	add("mcpengine_load_duration_seconds", "Measured time.", dto.MetricType_GAUGE, gauge(r.Seconds))
	add("mcpengine_load_sessions", "Sessions.", dto.MetricType_GAUGE, gauge(float64(r.Sessions)))
	if s := r.Schedule; s != nil {
		add("mcpengine_load_scheduled_total", "Open model: calls scheduled, sent, late and never sent.", dto.MetricType_COUNTER,
			counter(float64(s.Intended), "state", "intended"), counter(float64(s.Sent), "state", "sent"),
			counter(float64(s.Late), "state", "late"), counter(float64(s.Unsent), "state", "unsent"), counter(float64(s.Dropped), "state", "dropped"))
	}
	add("mcpengine_load_session_reconnects_total", "Sessions' reconnects by the engine after their server or connection was lost.", dto.MetricType_COUNTER,
		counter(float64(r.Supervision.Reconnects)))
	add("mcpengine_load_session_not_ready_seconds", "Time sessions spent not ready after having been ready, summed.", dto.MetricType_GAUGE,
		gauge(r.Supervision.NotReadyS))
	add("mcpengine_load_connect_seconds", "Connect phases, median.", dto.MetricType_GAUGE,
		gauge(r.Connect.P50.Seconds(), "phase", "transport"), gauge(r.Handshake.P50.Seconds(), "phase", "handshake"))
	if p := r.Processes; p != nil {
		add("mcpengine_load_server_cpu_seconds", "CPU time of the server processes during the run.", dto.MetricType_GAUGE, gauge(p.CPUSeconds))
		add("mcpengine_load_server_rss_bytes", "Resident memory of the server processes together.", dto.MetricType_GAUGE,
			gauge(float64(p.RSSFirst), "at", "first"), gauge(float64(p.RSSLast), "at", "last"), gauge(float64(p.RSSMax), "at", "max"))
	}
	var thresholds []*dto.Metric
	for _, t := range r.Thresholds {
		v := 0.0
		if t.Pass {
			v = 1
		}
		thresholds = append(thresholds, gauge(v, "threshold", t.Expr))
	}
	add("mcpengine_load_threshold_pass", "1 if the threshold passed.", dto.MetricType_GAUGE, thresholds...)

	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(w, f); err != nil {
			return err
		}
	}
	return nil
}

func labels(kv ...string) []*dto.LabelPair {
	out := make([]*dto.LabelPair, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, &dto.LabelPair{Name: proto.String(kv[i]), Value: proto.String(kv[i+1])})
	}
	return out
}

func counter(v float64, kv ...string) *dto.Metric {
	return &dto.Metric{Label: labels(kv...), Counter: &dto.Counter{Value: proto.Float64(v)}}
}

func gauge(v float64, kv ...string) *dto.Metric {
	return &dto.Metric{Label: labels(kv...), Gauge: &dto.Gauge{Value: proto.Float64(v)}}
}

// summary is a latency summary with its quantiles, in seconds.
func summary(l loadgen.Latency, kv ...string) *dto.Metric {
	var qs []*dto.Quantile
	for _, q := range []struct {
		q float64
		v interface{ Seconds() float64 }
	}{{0.5, l.P50}, {0.9, l.P90}, {0.95, l.P95}, {0.99, l.P99}, {0.999, l.P999}, {1, l.Max}} {
		qs = append(qs, &dto.Quantile{Quantile: proto.Float64(q.q), Value: proto.Float64(q.v.Seconds())})
	}
	return &dto.Metric{Label: labels(kv...), Summary: &dto.Summary{
		SampleCount: proto.Uint64(uint64(max(l.Count, 0))),
		SampleSum:   proto.Float64(l.Mean.Seconds() * float64(l.Count)),
		Quantile:    qs,
	}}
}

// addFlows adds the flows' families: iterations and steps apart from the
// mix's requests, so that every family keeps one set of labels.
func addFlows(r *loadgen.Result, add func(name, help string, typ dto.MetricType, ms ...*dto.Metric)) {
	var iters, aborted, flowLat, steps, stepLat, stepSvc []*dto.Metric
	for _, f := range r.Flows {
		iters = append(iters, counter(float64(f.OK), "flow", f.Name, "class", "ok"))
		for _, e := range ErrorClasses {
			iters = append(iters, counter(float64(f.Errors.Of(e.class)), "flow", f.Name, "class", e.class.String()))
		}
		aborted = append(aborted, counter(float64(f.Aborted), "flow", f.Name))
		flowLat = append(flowLat, summary(f.Latency, "flow", f.Name))
		for _, s := range f.Steps {
			steps = append(steps, counter(float64(s.OK), "flow", f.Name, "step", s.Name, "class", "ok"))
			for _, e := range ErrorClasses {
				steps = append(steps, counter(float64(s.Errors.Of(e.class)), "flow", f.Name, "step", s.Name, "class", e.class.String()))
			}
			stepLat = append(stepLat, summary(s.Latency, "flow", f.Name, "step", s.Name))
			stepSvc = append(stepSvc, summary(s.Service, "flow", f.Name, "step", s.Name))
		}
	}
	add("mcpengine_load_flow_iterations_total", "Measured flow iterations by outcome class (of the first failed step).", dto.MetricType_COUNTER, iters...)
	add("mcpengine_load_flow_aborted_total", "Flow iterations ended at a failed step (abort_on_fail).", dto.MetricType_COUNTER, aborted...)
	add("mcpengine_load_flow_latency_seconds", "Whole flow iterations, pauses included.", dto.MetricType_SUMMARY, flowLat...)
	add("mcpengine_load_step_calls_total", "Measured calls of flow steps by outcome class.", dto.MetricType_COUNTER, steps...)
	add("mcpengine_load_step_latency_seconds", "Flow step latency (open model: the first step from the scheduled time).", dto.MetricType_SUMMARY, stepLat...)
	add("mcpengine_load_step_service_seconds", "Flow step service time (from the actual send).", dto.MetricType_SUMMARY, stepSvc...)
}
