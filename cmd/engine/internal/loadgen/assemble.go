package loadgen

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// result merges every session's figures into the Result. The dense
// histograms it builds (a few per request kind) live only as long as the
// Result.
func (r *runner) result(smp *sampler) *Result {
	cfg := r.cfg
	res := &Result{
		Schema: SchemaVersion, Target: cfg.Label, Model: string(cfg.Model),
		Sessions: cfg.Sessions, Concurrency: cfg.Concurrency,
		Stages: cfg.Stages, Churn: cfg.Churn,
		Started:     r.start.UTC().Round(time.Millisecond),
		Interrupted: r.stopWhy.Load() == stopCtx || r.ctx.Err() != nil,
		CutOff:      r.cutOff.Load(),
		Aborted:     derefOr(r.aborted.Load(), ""),
		Timeline:    smp.timeline,
		LatencyHist: NewHistogram(),
		ServiceHist: NewHistogram(),
	}
	if len(cfg.Stages) > 0 {
		res.StartLevel = cfg.StartLevel
	}
	if r.open && len(cfg.Stages) == 0 {
		res.Rate = cfg.Rate
	}
	for _, q := range r.wl.reqs[:r.wl.mix] {
		res.Workload = append(res.Workload, RequestInfo{Name: q.Name, Method: q.Method, Tool: q.Tool, Weight: q.Weight})
	}
	if r.wl.mix == 1 && len(r.wl.flows) == 0 {
		q := r.wl.reqs[0]
		res.Method, res.Tool = q.Method, q.Tool
		switch a := q.Args.(type) {
		case string:
			if json.Valid([]byte(a)) {
				res.Args = json.RawMessage(a)
			}
		case json.RawMessage:
			res.Args = a
		}
	}

	// The measured window: from the end of the warm-up to the last answer
	// (or to the stop, if nothing was answered).
	measureAt := time.Duration(max(r.measureAt.Load(), 0))
	var end time.Duration
	for _, sl := range r.slots {
		end = max(end, sl.stats.lastDone) // every caller has returned
	}
	if end <= measureAt {
		end = time.Duration(r.stopAt.Load())
	}
	res.Duration = max(0, end-measureAt)
	res.Seconds = res.Duration.Seconds()
	if cfg.WarmupCount > 0 || cfg.WarmupDuration > 0 {
		res.Warmup.Seconds = measureAt.Seconds()
	}
	if cfg.WarmupCount > 0 {
		res.Warmup.Calls = cfg.WarmupCount
	} else if measureAt > 0 {
		res.Warmup.Calls = min(r.tickets.Load(), r.warmTickets())
	}

	var counts [numClasses]int64
	codes := map[int64]int64{}
	first := map[string]string{}
	lat, svc := NewHistogram(), NewHistogram() // reused per request kind and per session
	lag := NewHistogram()
	var histBytes int64
	steps := make([][]MethodResult, len(r.wl.flows))
	for i, q := range r.wl.reqs {
		lat.Reset()
		svc.Reset()
		var mc [numClasses]int64
		mcodes := map[int64]int64{}
		mfirst := map[string]string{}
		for _, sl := range r.slots {
			m := sl.stats.methods[i]
			if m == nil {
				continue
			}
			m.service.MergeInto(svc)
			if m.latency != nil {
				m.latency.MergeInto(lat)
			} else {
				m.service.MergeInto(lat)
			}
			for c := range numClasses {
				mc[c] += m.counts[c]
				if msg := m.firstErr[c]; msg != "" && mfirst[c.String()] == "" {
					mfirst[c.String()] = msg
				}
			}
			for code, n := range m.rpcCodes {
				mcodes[code] += n
			}
		}
		res.LatencyHist.Merge(lat)
		res.ServiceHist.Merge(svc)
		mr := MethodResult{Name: q.Name, Method: q.Method, Tool: q.Tool,
			Errors: errorCounts(&mc), Latency: Summarize(lat), Service: Summarize(svc)}
		mr.OK = mc[OK]
		mr.Failed = mr.Errors.Total()
		mr.Calls = mr.OK + mr.Failed
		mr.ErrorRate = ratio(mr.Failed, mr.Calls)
		if res.Duration > 0 {
			mr.CallsPerSecond = float64(mr.Calls) / res.Seconds
		}
		mr.RPCCodes = codeMap(mcodes)
		if cfg.MethodHistograms {
			mr.HDR = &HDRDump{Latency: encodeHDR(lat), Service: encodeHDR(svc)}
		}
		if len(mfirst) > 0 {
			mr.FirstErrors = mfirst
		}
		if q.flow != nil {
			mr.Flow = q.flow.Name
			steps[q.flow.index] = append(steps[q.flow.index], mr)
		} else {
			res.Methods = append(res.Methods, mr)
		}
		for c := range numClasses {
			counts[c] += mc[c]
		}
		for code, n := range mcodes {
			codes[code] += n
		}
		for k, v := range mfirst {
			if first[k] == "" {
				first[k] = v
			}
		}
	}

	res.Flows = r.flowResults(steps, res.Seconds, lat, cfg.MethodHistograms)

	res.OK = counts[OK]
	res.Errors = errorCounts(&counts)
	res.Failed = res.Errors.Total()
	res.Calls = res.OK + res.Failed
	res.ErrorRate = ratio(res.Failed, res.Calls)
	if res.Aborted != "" {
		// The calls under way when the threshold stopped the run finish
		// and count: say the total the report shows.
		res.Aborted += abortedTotal(res.Calls)
	}
	res.RPCCodes = codeMap(codes)
	if len(first) > 0 {
		res.FirstErrors = first
	}
	if res.Duration > 0 {
		res.CallsPerSecond = float64(res.Calls) / res.Seconds
	}
	res.Latency = Summarize(res.LatencyHist)
	res.Service = Summarize(res.ServiceHist)
	res.Percentiles = spectrum(res.LatencyHist, res.ServiceHist)
	res.Histogram = logBuckets(res.LatencyHist, 10)
	res.HDR.Latency = encodeHDR(res.LatencyHist)
	res.HDR.Service = encodeHDR(res.ServiceHist)

	// Per session.
	for _, sl := range r.slots {
		lat.Reset()
		sup := sl.sup.snapshot(time.Now())
		res.Supervision.add(sup)
		sr := SessionResult{Session: sl.idx, Connects: sl.connects.Load(),
			Reconnects: sup.Reconnects, Restarts: sup.Restarts, NotReadyS: sup.NotReadyS}
		for _, m := range sl.stats.methods {
			if m == nil {
				continue
			}
			if m.latency != nil {
				m.latency.MergeInto(lat)
			} else {
				m.service.MergeInto(lat)
			}
			for c := range numClasses {
				sr.Calls += m.counts[c]
				if c != OK {
					sr.Failed += m.counts[c]
				}
			}
		}
		if lat.TotalCount() > 0 {
			q := lat.ValueAtPercentilesSlice([]float64{50, 99})
			sr.P50US, sr.P99US, sr.MaxUS = q[0], q[1], lat.Max()
		}
		sr.Share = ratio(sr.Calls, res.Calls)
		res.PerSession = append(res.PerSession, sr)
		if sl.stats.sendLag != nil {
			sl.stats.sendLag.MergeInto(lag)
		}
		histBytes += int64(sl.stats.histogramBytes())
	}

	// Connects.
	r.connMu.Lock()
	res.Connect.Count, res.Connect.Failed = r.connects, r.connectFails
	res.Protocols = slices.Clone(r.protocols)
	if r.dialHist.TotalCount() > 0 {
		d := summarizePacked(r.dialHist)
		res.Connect.Min, res.Connect.Mean, res.Connect.P50, res.Connect.P99, res.Connect.Max = d.Min, d.Mean, d.P50, d.P99, d.Max
	}
	res.Handshake = summarizePacked(r.handshake)
	if cfg.MethodHistograms {
		res.HDR.Connect = encodePacked(r.dialHist, lat)
		res.HDR.Handshake = encodePacked(r.handshake, lat)
	}
	histBytes += int64(r.dialHist.GetMemorySize() + r.handshake.GetMemorySize())
	if s := res.Supervision; s.Reconnects > 0 {
		r.warn("sessions were reconnected %d times by the engine after their server or connection was lost (%d restarts); they spent %.1fs not ready in all, and the calls due meanwhile waited or failed",
			s.Reconnects, s.Restarts, s.NotReadyS)
	}
	if r.connectFails > 0 {
		r.warn("%d connects failed during the run; last error: %s", r.connectFails, r.connectErr)
	}
	r.connMu.Unlock()

	if r.open {
		res.Schedule = r.schedule(lag)
		if cfg.MethodHistograms {
			res.HDR.SendLag = encodeHDR(lag)
		}
	}
	res.Processes = smp.processStats(r.since(time.Now()))
	res.Client = smp.clientStats(r.since(time.Now()))
	res.Client.HistogramBytes = histBytes
	r.finalWarnings(res)
	res.Warnings = r.warnings
	return res
}

// abortedTotalPrefix begins the part of Result.Aborted that gives the
// report's total, which a merge replaces with the merged one.
const abortedTotalPrefix = "; the report counts "

func abortedTotal(calls int64) string {
	return fmt.Sprintf("%s%d calls, with those under way at the stop", abortedTotalPrefix, calls)
}

// warmTickets is the number of calls the warm-up takes.
func (r *runner) warmTickets() int64 {
	if r.cfg.WarmupCount > 0 {
		return r.cfg.WarmupCount
	}
	if r.open && r.warmup > 0 {
		return int64(math.Ceil(r.prof.countAt(r.warmup)))
	}
	return 0
}

// schedule accounts for the open model's sends: how many calls were due
// in the measured time, and how many were sent, late or never.
func (r *runner) schedule(lag *hdrhistogram.Histogram) *Schedule {
	dueEnd := r.prof.end
	if r.stopWhy.Load() == stopCtx {
		dueEnd = min(dueEnd, time.Duration(r.stopAt.Load()))
	}
	var due int64
	if dueEnd == forever { // only a count ends the run
		due = r.warmTickets() + r.cfg.Count
	} else {
		due = int64(math.Ceil(r.prof.countAt(dueEnd) - 1e-9))
	}
	if r.cfg.Count > 0 {
		due = min(due, r.warmTickets()+r.cfg.Count)
	}
	sc := &Schedule{
		Intended:    max(0, due-r.warmTickets()),
		Sent:        lag.TotalCount(), // every measured call sent records its lag
		LateAfterUS: r.cfg.LateAfter.Microseconds(),
		SendLag:     Summarize(lag),
	}
	var lastSent time.Duration
	for _, sl := range r.slots {
		sl.stats.mu.Lock()
		sc.Late += sl.stats.late
		lastSent = max(lastSent, sl.stats.lastSent)
		sl.stats.mu.Unlock()
	}
	sc.Unsent = max(0, sc.Intended-sc.Sent)
	if r.stopWhy.Load() == stopEnd {
		// The duration ended with these still due: dropped, not sent late
		// (the calls the graceful stop cut off were started).
		sc.Dropped = max(0, sc.Unsent-r.cutOff.Load())
	}
	// Sends over the time sending took: the scheduled window, or longer
	// when the last send came after it (a generator that fell behind sent
	// at the rate it managed, not the one it was asked for).
	sendEnd := lastSent
	if dueEnd != forever {
		sendEnd = max(sendEnd, dueEnd)
	}
	if sendEnd > r.warmup {
		sc.SentPerSec = float64(sc.Sent) / (sendEnd - r.warmup).Seconds()
	}
	return sc
}

func (r *runner) finalWarnings(res *Result) {
	if s := res.Schedule; s != nil && s.Intended > 0 {
		if s.Late*100 > s.Intended {
			r.warn("%d of %d calls (%.1f%%) were sent more than %v behind schedule: every session had %d calls in flight. Raise -c, or the server cannot keep up with -r",
				s.Late, s.Intended, 100*float64(s.Late)/float64(s.Intended), r.cfg.LateAfter, r.cfg.Concurrency)
		}
		if s.Dropped > 0 {
			r.warn("%d of %d calls due were dropped: every session had %d calls in flight until the duration ended. Raise -c, or the server cannot keep up with -r",
				s.Dropped, s.Intended, r.cfg.Concurrency)
		} else if s.Unsent > 0 && !res.Interrupted {
			r.warn("%d scheduled calls were never sent before the run ended", s.Unsent)
		}
		// Lag that is not back-pressure (few late calls) is the
		// generator's own imprecision: say so when it is a tenth of the
		// latency it reports or more.
		if l, lag := res.Latency.P50, s.SendLag.P50; l > 0 && lag*10 > l && s.Late*100 <= s.Intended {
			r.warn("the generator's own send lag (p50 %v, p99 %v) is %.0f%% of the latency p50 (%v): this machine does not schedule precisely enough to resolve it; the service time (p50 %v, from the actual send) is the server's share",
				FormatDuration(lag), FormatDuration(s.SendLag.P99), 100*float64(lag)/float64(l), FormatDuration(l), FormatDuration(res.Service.P50))
		}
	}
	if c := res.Client; c.CPUPercent > 85*float64(min(c.Cores, runtime.NumCPU())) {
		r.warn("the load generator itself used %.0f%% CPU of %d cores: the figures may measure the client, not the server", c.CPUPercent, c.Cores)
	}
}

func ratio(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func codeMap(m map[int64]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[strconv.FormatInt(k, 10)] = v
	}
	return out
}

func encodeHDR(h *hdrhistogram.Histogram) string {
	if h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// encodePacked is encodeHDR for a sparse histogram, through scratch (a
// dense histogram it resets).
func encodePacked(h *hdrhistogram.PackedHistogram, scratch *hdrhistogram.Histogram) string {
	scratch.Reset()
	h.MergeInto(scratch)
	return encodeHDR(scratch)
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
