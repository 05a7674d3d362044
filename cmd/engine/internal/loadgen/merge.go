package loadgen

import (
	"fmt"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Member statuses in MemberResult.Status.
const (
	// MemberFinished: the member ran its share and sent its result.
	MemberFinished = "finished"
	// MemberLost: the member went away during the run (process killed,
	// host down, cluster membership says it left); its calls up to its
	// last report count.
	MemberLost = "lost"
	// MemberFailed: the member could not run its share (its sessions did
	// not connect, its configuration was refused); it made no calls.
	MemberFailed = "failed"
)

// MemberResult is one member of a distributed run: where it runs, its
// share of the load and what it measured.
type MemberResult struct {
	Address string `json:"address"`
	Status  string `json:"status"`
	// Error says why a member failed or was lost.
	Error string `json:"error,omitempty"`
	// Sessions, Rate and Count are the member's share.
	Sessions int     `json:"sessions"`
	Rate     float64 `json:"rate,omitempty"`
	Count    int64   `json:"count,omitempty"`
	// Owed, for a member that did not finish, is the calls of its share
	// it never made: the rest of its count, or in the open model the
	// calls its rate made due after its last report (0 when the share
	// sets no number: a closed model bounded by time).
	Owed int64 `json:"owed,omitempty"`

	Calls          int64   `json:"calls"`
	OK             int64   `json:"ok"`
	Failed         int64   `json:"failed"`
	Seconds        float64 `json:"duration_s"`
	CallsPerSecond float64 `json:"calls_per_s"`
	Latency        Latency `json:"latency_us"`
	Service        Latency `json:"service_us"`
	// ClientCPUSeconds is the member process's CPU time during the run.
	ClientCPUSeconds float64 `json:"client_cpu_s"`
	// HDR holds the member's histograms: merging them gives the run's.
	HDR HDRDump `json:"hdr"`
}

// Part is one member's contribution to Merge.
type Part struct {
	Member MemberResult
	// Result is what the member measured: its final Result, or for a lost
	// member what its reports held (counts and histograms). Nil when it
	// made no calls.
	Result *Result
}

// DecodeHDR reads a histogram HDRDump holds ("" is an empty one).
func DecodeHDR(s string) (*hdrhistogram.Histogram, error) {
	if s == "" {
		return NewHistogram(), nil
	}
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("loadgen: decoding a histogram: %w", err)
	}
	return h, nil
}

// EncodeHDR is what HDRDump holds for h ("" when it is empty).
func EncodeHDR(h *hdrhistogram.Histogram) string { return encodeHDR(h) }

// FromHistograms fills r's totals that derive from its latency and
// service histograms (which it takes): summaries, percentile curve,
// histogram bars, the HDR dump.
func (r *Result) FromHistograms(lat, svc *hdrhistogram.Histogram) {
	r.LatencyHist, r.ServiceHist = lat, svc
	r.Latency = Summarize(lat)
	r.Service = Summarize(svc)
	r.Percentiles = spectrum(lat, svc)
	r.Histogram = logBuckets(lat, 10)
	r.HDR.Latency = encodeHDR(lat)
	r.HDR.Service = encodeHDR(svc)
}

// Merge adds up the members' Results into one: counts are summed and
// histograms merged (never percentiles averaged), so every total and
// percentile is what one generator making all the calls would report. The
// descriptive fields (model, workload) come from the first member with a
// result; the caller sets the run's shape (sessions, rate, stages), its
// timeline and its thresholds. Connect and handshake percentiles merge
// from the members' histograms (HDR.Connect, HDR.Handshake); only when a
// member sent its connect figures without them are they the highest
// member's (an upper bound).
func Merge(parts []Part) (*Result, error) {
	res := &Result{Schema: SchemaVersion, Timeline: newTimeline(1, 1200)}
	lat, svc, lag := NewHistogram(), NewHistogram(), NewHistogram()
	conn, hs := newConnectMerge(), newConnectMerge()
	var counts ErrorCounts
	codes := map[string]int64{}
	first := map[string]string{}
	var base *Result
	var connMean, hsMean float64
	offset := 0
	for i := range parts {
		p := &parts[i]
		m := &p.Member
		r := p.Result
		if m.Status != MemberFinished {
			res.Partial = true
		}
		if r == nil {
			res.Members = append(res.Members, *m)
			continue
		}
		if base == nil {
			base = r
		}
		ml, err := histOf(r.LatencyHist, r.HDR.Latency)
		if err != nil {
			return nil, err
		}
		ms, err := histOf(r.ServiceHist, r.HDR.Service)
		if err != nil {
			return nil, err
		}
		lat.Merge(ml)
		svc.Merge(ms)
		m.Calls, m.OK, m.Failed = r.Calls, r.OK, r.Failed
		m.Seconds, m.CallsPerSecond = r.Seconds, r.CallsPerSecond
		m.Latency, m.Service = Summarize(ml), Summarize(ms)
		m.ClientCPUSeconds = r.Client.CPUSeconds
		m.HDR = HDRDump{Latency: encodeHDR(ml), Service: encodeHDR(ms), Connect: r.HDR.Connect, Handshake: r.HDR.Handshake}
		res.Members = append(res.Members, *m)

		res.OK += r.OK
		counts = counts.Plus(r.Errors)
		for k, v := range r.RPCCodes {
			codes[k] += v
		}
		for k, v := range r.FirstErrors {
			if first[k] == "" {
				first[k] = v
			}
		}
		res.Duration = max(res.Duration, r.Duration)
		if res.Started.IsZero() || (!r.Started.IsZero() && r.Started.Before(res.Started)) {
			res.Started = r.Started
		}
		res.Warmup.Seconds = max(res.Warmup.Seconds, r.Warmup.Seconds)
		res.Warmup.Calls += r.Warmup.Calls
		if r.Schedule != nil {
			if err := mergeSchedule(res, r, lag); err != nil {
				return nil, err
			}
		}
		if err := mergeKinds(&res.Methods, r.Methods); err != nil {
			return nil, err
		}
		if err := mergeFlows(res, r); err != nil {
			return nil, err
		}
		for _, s := range r.PerSession {
			s.Session += offset
			res.PerSession = append(res.PerSession, s)
		}
		offset += m.Sessions
		c := r.Connect
		connMean += float64(c.Count) * float64(c.Mean)
		hsMean += float64(r.Handshake.Count) * float64(r.Handshake.Mean)
		res.Connect = mergeConnect(res.Connect, c)
		res.Handshake = mergeUpper(res.Handshake, r.Handshake)
		// The connect histogram holds the transport phases that were
		// timed apart (Max > 0), the handshake one every connect.
		if err := conn.add(c.Max > 0, r.HDR.Connect); err != nil {
			return nil, err
		}
		if err := hs.add(r.Handshake.Count > 0, r.HDR.Handshake); err != nil {
			return nil, err
		}
		for _, pu := range r.Protocols {
			res.Protocols = addProtocol(res.Protocols, pu)
		}
		res.Processes = mergeProcs(res.Processes, r.Processes)
		res.Client.CPUSeconds += r.Client.CPUSeconds
		res.Client.CPUPercent += r.Client.CPUPercent
		res.Client.HeapBytesMax = max(res.Client.HeapBytesMax, r.Client.HeapBytesMax)
		res.Client.HistogramBytes += r.Client.HistogramBytes
		res.Client.Cores += r.Client.Cores
		res.Client.CPUs += r.Client.CPUs
		for _, w := range r.Warnings {
			res.Warnings = append(res.Warnings, m.Address+": "+w)
		}
		res.Interrupted = res.Interrupted || r.Interrupted
		res.CutOff += r.CutOff
		res.Supervision.add(r.Supervision)
		if res.Aborted == "" {
			res.Aborted = r.Aborted
		}
	}
	if base != nil {
		res.Target, res.Model = base.Target, base.Model
		res.Method, res.Tool, res.Args, res.Workload = base.Method, base.Tool, base.Args, base.Workload
		res.Concurrency, res.Churn = base.Concurrency, base.Churn
	}
	if res.Connect.Count > 0 {
		res.Connect.Mean = time.Duration(connMean / float64(res.Connect.Count))
	}
	if res.Handshake.Count > 0 {
		res.Handshake.Mean = time.Duration(hsMean / float64(res.Handshake.Count))
	}
	if d, ok := conn.summary(); ok {
		res.Connect.Min, res.Connect.Mean, res.Connect.P50, res.Connect.P99, res.Connect.Max = d.Min, d.Mean, d.P50, d.P99, d.Max
	}
	if d, ok := hs.summary(); ok {
		res.Handshake = d
	}
	res.Errors = counts
	res.Failed = counts.Total()
	res.Calls = res.OK + res.Failed
	res.ErrorRate = ratio(res.Failed, res.Calls)
	if len(codes) > 0 {
		res.RPCCodes = codes
	}
	if len(first) > 0 {
		res.FirstErrors = first
	}
	if before, _, ok := strings.Cut(res.Aborted, abortedTotalPrefix); ok {
		res.Aborted = before + abortedTotal(res.Calls) // the member's was its own
	}
	res.Seconds = res.Duration.Seconds()
	if res.Duration > 0 {
		res.CallsPerSecond = float64(res.Calls) / res.Seconds
		for i := range res.Methods {
			res.Methods[i].CallsPerSecond = float64(res.Methods[i].Calls) / res.Seconds
		}
		for i := range res.Flows {
			f := &res.Flows[i]
			f.IterationsPerSecond = float64(f.Iterations) / res.Seconds
			for j := range f.Steps {
				f.Steps[j].CallsPerSecond = float64(f.Steps[j].Calls) / res.Seconds
			}
		}
	}
	for i := range res.PerSession {
		res.PerSession[i].Share = ratio(res.PerSession[i].Calls, res.Calls)
	}
	if res.Schedule != nil {
		res.Schedule.Unsent = max(0, res.Schedule.Intended-res.Schedule.Sent)
		res.Schedule.SendLag = Summarize(lag)
	}
	res.FromHistograms(lat, svc)
	return res, nil
}

func histOf(h *hdrhistogram.Histogram, enc string) (*hdrhistogram.Histogram, error) {
	if h != nil {
		return h, nil
	}
	return DecodeHDR(enc)
}

// mergeSchedule adds a member's open-model account; its send lag merges
// from the member's histogram when it kept one (Config.MethodHistograms).
func mergeSchedule(res, r *Result, lag *hdrhistogram.Histogram) error {
	if res.Schedule == nil {
		res.Schedule = &Schedule{LateAfterUS: r.Schedule.LateAfterUS}
	}
	s, q := res.Schedule, r.Schedule
	s.Intended += q.Intended
	s.Sent += q.Sent
	s.Late += q.Late
	s.Dropped += q.Dropped
	s.SentPerSec += q.SentPerSec
	h, err := DecodeHDR(r.HDR.SendLag)
	if err != nil {
		return err
	}
	lag.Merge(h)
	return nil
}

// mergeKinds adds a member's per-kind figures (requests, or a flow's
// steps) to acc, by name (every member runs the same workload).
func mergeKinds(acc *[]MethodResult, add []MethodResult) error {
	for _, q := range add {
		i := -1
		for j := range *acc {
			if (*acc)[j].Name == q.Name && (*acc)[j].Flow == q.Flow {
				i = j
			}
		}
		if i < 0 {
			*acc = append(*acc, MethodResult{Name: q.Name, Flow: q.Flow, Method: q.Method, Tool: q.Tool,
				HDR: &HDRDump{}})
			i = len(*acc) - 1
		}
		m := &(*acc)[i]
		m.Calls += q.Calls
		m.OK += q.OK
		m.Failed += q.Failed
		m.ErrorRate = ratio(m.Failed, m.Calls)
		m.Errors = m.Errors.Plus(q.Errors)
		for k, v := range q.RPCCodes {
			if m.RPCCodes == nil {
				m.RPCCodes = map[string]int64{}
			}
			m.RPCCodes[k] += v
		}
		for k, v := range q.FirstErrors {
			if m.FirstErrors == nil {
				m.FirstErrors = map[string]string{}
			}
			if m.FirstErrors[k] == "" {
				m.FirstErrors[k] = v
			}
		}
		if q.HDR == nil || m.HDR == nil {
			// A member without the kind's histograms: its percentiles
			// cannot be merged, so the kind shows counts only.
			m.HDR, m.Latency, m.Service = nil, Latency{}, Latency{}
			continue
		}
		for _, pair := range []struct {
			acc *string
			add string
			sum *Latency
		}{{&m.HDR.Latency, q.HDR.Latency, &m.Latency}, {&m.HDR.Service, q.HDR.Service, &m.Service}} {
			h, err := DecodeHDR(*pair.acc)
			if err != nil {
				return err
			}
			add, err := DecodeHDR(pair.add)
			if err != nil {
				return err
			}
			h.Merge(add)
			*pair.acc = encodeHDR(h)
			*pair.sum = Summarize(h)
		}
	}
	return nil
}

// StripMethodHistograms drops the per-kind, per-flow, send-lag and
// connect histograms Merge worked from, which the report does not show
// (the members' own stay in Members).
func (r *Result) StripMethodHistograms() {
	for i := range r.Methods {
		r.Methods[i].HDR = nil
	}
	for i := range r.Flows {
		f := &r.Flows[i]
		f.HDR = nil
		for j := range f.Steps {
			f.Steps[j].HDR = nil
		}
	}
	r.HDR.SendLag, r.HDR.Connect, r.HDR.Handshake = "", "", ""
}

func mergeConnect(a, b ConnectStats) ConnectStats {
	if b.Count == 0 {
		a.Failed += b.Failed
		return a
	}
	if a.Count == 0 {
		a.Min = b.Min
	}
	a.Total = max(a.Total, b.Total)
	a.Count += b.Count
	a.Failed += b.Failed
	a.Min = min(a.Min, b.Min)
	a.Max = max(a.Max, b.Max)
	a.P50 = max(a.P50, b.P50)
	a.P99 = max(a.P99, b.P99)
	return a
}

// mergeUpper merges two summaries without their histograms: exact count,
// min and max; the percentiles are the higher of the two (an upper
// bound); the caller computes the mean.
func mergeUpper(a, b Latency) Latency {
	if b.Count == 0 {
		return a
	}
	if a.Count == 0 {
		a.Min = b.Min
	}
	a.Count += b.Count
	a.Min = min(a.Min, b.Min)
	a.Max = max(a.Max, b.Max)
	a.P50, a.P90, a.P95 = max(a.P50, b.P50), max(a.P90, b.P90), max(a.P95, b.P95)
	a.P99, a.P999 = max(a.P99, b.P99), max(a.P999, b.P999)
	a.StdDev = max(a.StdDev, b.StdDev)
	return a
}

func addProtocol(ps []ProtocolUse, p ProtocolUse) []ProtocolUse {
	for i := range ps {
		if ps[i].Version == p.Version {
			ps[i].Connects += p.Connects
			return ps
		}
	}
	return append(ps, p)
}

// mergeProcs adds the server processes each member started (stdio
// targets: each member's are its own).
func mergeProcs(a, b *ProcStats) *ProcStats {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		return &c
	}
	a.Processes += b.Processes
	a.CPUSeconds += b.CPUSeconds
	a.CPUPercent += b.CPUPercent
	a.CPUPercentMax += b.CPUPercentMax
	a.RSSFirst += b.RSSFirst
	a.RSSLast += b.RSSLast
	a.RSSMax += b.RSSMax
	a.RSSPerProcessMax = max(a.RSSPerProcessMax, b.RSSPerProcessMax)
	return a
}

// TimelineBuilder collects a merged run's intervals into a Timeline
// bounded like a single run's.
type TimelineBuilder struct{ t *Timeline }

// NewTimelineBuilder starts a timeline of intervals of the given length.
func NewTimelineBuilder(interval time.Duration, maxPoints int) *TimelineBuilder {
	if maxPoints <= 1 {
		maxPoints = 1200
	}
	return &TimelineBuilder{newTimeline(interval.Seconds(), maxPoints)}
}

// Add appends one interval.
func (b *TimelineBuilder) Add(p Point) { b.t.add(p) }

// Finish flushes the last partial point and returns the timeline.
func (b *TimelineBuilder) Finish() *Timeline {
	b.t.finish()
	return b.t
}
