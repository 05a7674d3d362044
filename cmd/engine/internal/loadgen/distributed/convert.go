package distributed

import (
	"encoding/json"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed/loadpb"
)

// progressMsg is a member's interval as the coordinator receives it.
func progressMsg(runID, member string, seq int64, p loadgen.Progress) *loadpb.Progress {
	l := p.Last
	lat := p.Latency
	if lat == nil { // closed model: latency is service time
		lat = p.Service
	}
	return &loadpb.Progress{
		RunId: runID, Member: member, Seq: seq,
		ElapsedNs: int64(p.Elapsed), PlannedNs: int64(p.Planned), Warmup: p.Warmup,
		Calls: p.Calls, Errors: p.Errors, Classes: classesMsg(p.ErrorClasses),
		Seconds: l.Seconds, IntervalCalls: l.Calls, IntervalErrors: l.Errors, Late: l.Late,
		InFlight: l.InFlight, Sessions: int64(l.Sessions), Target: l.Target, DuePerS: l.DuePerSecond,
		ServerCpuPct: l.ServerCPU, ServerRssBytes: l.ServerRSS, ClientCpuPct: l.ClientCPU,
		LatencyHdr: encodeInterval(lat), ServiceHdr: encodeInterval(p.Service),
		Connects: p.Connects.Count, ConnectFailed: p.Connects.Failed,
		ConnectHdr: []byte(p.Connects.Connect), HandshakeHdr: []byte(p.Connects.Handshake),
	}
}

func encodeInterval(h *hdrhistogram.Histogram) []byte {
	if h == nil {
		return nil
	}
	return []byte(loadgen.EncodeHDR(h))
}

func classesMsg(e loadgen.ErrorCounts) *loadpb.ErrorClasses {
	return &loadpb.ErrorClasses{Transport: e.Transport, Timeout: e.Timeout, Rpc: e.RPC, Tool: e.Tool,
		Schema: e.Schema, Other: e.Other, Check: e.Check}
}

func classesOf(m *loadpb.ErrorClasses) loadgen.ErrorCounts {
	if m == nil {
		return loadgen.ErrorCounts{}
	}
	return loadgen.ErrorCounts{Transport: m.Transport, Timeout: m.Timeout, RPC: m.Rpc, Tool: m.Tool,
		Schema: m.Schema, Other: m.Other, Check: m.Check}
}

// pointOf is the interval of a Progress, without its percentiles (the
// coordinator reads them off the merged histograms).
func pointOf(m *loadpb.Progress) loadgen.Point {
	return loadgen.Point{
		T: time.Duration(m.ElapsedNs).Seconds(), Seconds: m.Seconds,
		Calls: m.IntervalCalls, Errors: m.IntervalErrors, Late: m.Late,
		InFlight: m.InFlight, Sessions: int(m.Sessions), Target: m.Target, DuePerSecond: m.DuePerS,
		ServerCPU: m.ServerCpuPct, ServerRSS: m.ServerRssBytes, ClientCPU: m.ClientCpuPct,
	}
}

// addPoint adds q's counts and levels to p: the members' intervals end at
// about the same instant, so counts, rates and levels add up.
func addPoint(p *loadgen.Point, q loadgen.Point) {
	p.T = max(p.T, q.T)
	p.Seconds = max(p.Seconds, q.Seconds)
	p.Calls += q.Calls
	p.Errors += q.Errors
	p.Late += q.Late
	p.InFlight += q.InFlight
	p.Sessions += q.Sessions
	p.Target += q.Target
	p.DuePerSecond += q.DuePerSecond
	p.ServerCPU += q.ServerCPU
	p.ServerRSS += q.ServerRSS
	p.ClientCPU += q.ClientCPU
}

// withPercentiles fills p's rate and percentiles from the interval's
// merged histograms.
func withPercentiles(p *loadgen.Point, lat, svc *hdrhistogram.Histogram) {
	if p.Seconds > 0 {
		p.CallsPerSecond = float64(p.Calls) / p.Seconds
	}
	if lat.TotalCount() > 0 {
		q := lat.ValueAtPercentilesSlice([]float64{50, 90, 99})
		p.P50US, p.P90US, p.P99US, p.MaxUS = q[0], q[1], q[2], lat.Max()
	}
	if svc.TotalCount() > 0 {
		q := svc.ValueAtPercentilesSlice([]float64{50, 99})
		p.ServiceP50US, p.ServiceP99US = q[0], q[1]
	}
}

// resultJSON and resultOf carry a member's Result in the report's JSON
// layout; the histograms travel in its HDR fields.
func resultJSON(r *loadgen.Result) ([]byte, error) { return json.Marshal(r) }

func resultOf(b []byte) (*loadgen.Result, error) {
	var r loadgen.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	r.Duration = time.Duration(r.Seconds * float64(time.Second))
	return &r, nil
}
