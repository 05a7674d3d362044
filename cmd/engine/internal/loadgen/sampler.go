package loadgen

import (
	"math"
	"runtime"

	"runtime/metrics"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// sampler closes an interval once per Config.Interval: it takes every
// session's interval figures, appends a timeline point, samples the
// server processes and reports progress.
type sampler struct {
	r        *runner
	iv       *interval
	timeline *Timeline
	last     time.Time

	procs       bool // sampling the process tree works here
	first, prev procSample
	proc        ProcStats
	procSeen    bool
	procSamples int
	heapMax     uint64
	heap        []metrics.Sample

	calls, errors int64
	classes       [numClasses]int64 // calls so far by outcome class
	live          liveStats

	// conns is the last ConnectsSoFar reported, connScratch the dense
	// histogram it was encoded through (Config.MethodHistograms only).
	conns       ConnectsSoFar
	connScratch *hdrhistogram.Histogram
}

func newSampler(r *runner) *sampler {
	s := &sampler{
		r:        r,
		iv:       newInterval(r.open),
		timeline: newTimeline(r.cfg.Interval.Seconds(), r.cfg.MaxTimelinePoints),
		last:     r.start,
		heap:     []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}},
	}
	if !r.cfg.NoProcessStats {
		s.first, s.procs = sampleTree()
		s.prev = s.first
	}
	return s
}

// loop ticks until finished is closed, then closes the last interval.
func (s *sampler) loop(finished <-chan struct{}) {
	t := time.NewTicker(s.r.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			s.tick(now, false)
		case <-finished:
			// A sliver of an interval would chart as a spike: unless it is
			// the run's only point, its calls join the latest point.
			empty := len(s.timeline.Points) == 0 && s.timeline.pending.merged == 0
			now := time.Now()
			s.tick(now, !empty && now.Sub(s.last) <= s.r.cfg.Interval/20)
			s.timeline.finish()
			return
		}
	}
}

// tick closes the interval ending at now: its point joins the timeline
// (folded into the latest one when it is the run's closing sliver) and
// Progress reports it.
func (s *sampler) tick(now time.Time, sliver bool) {
	r := s.r
	s.iv.reset()
	for _, sl := range r.slots {
		sl.stats.drainInto(s.iv)
	}
	prev := s.last
	sec := now.Sub(prev).Seconds()
	s.last = now
	p := Point{T: r.since(now).Seconds(), Seconds: sec, Late: s.iv.late}
	for c := range numClasses {
		p.Calls += s.iv.counts[c]
	}
	p.Errors = p.Calls - s.iv.counts[OK]
	if sec > 0 {
		p.CallsPerSecond = float64(p.Calls) / sec
	}
	svc, lat := s.iv.service, s.iv.latency
	if lat == nil {
		lat = svc
	}
	if lat.TotalCount() > 0 {
		q := lat.ValueAtPercentilesSlice([]float64{50, 90, 99})
		p.P50US, p.P90US, p.P99US, p.MaxUS = q[0], q[1], q[2], lat.Max()
		sq := svc.ValueAtPercentilesSlice([]float64{50, 99})
		p.ServiceP50US, p.ServiceP99US = sq[0], sq[1]
	}
	for _, sl := range r.slots {
		p.InFlight += sl.inflight.Load()
	}
	p.Sessions = int(r.live.Load())
	p.Target = r.level(now)
	if r.open && sec > 0 {
		p.DuePerSecond = (r.prof.countAt(r.profileTime(now)) - r.prof.countAt(r.profileTime(prev))) / sec
	}
	s.sampleProcesses(&p, sec)
	metrics.Read(s.heap)
	if s.heap[0].Value.Kind() == metrics.KindUint64 {
		s.heapMax = max(s.heapMax, s.heap[0].Value.Uint64())
	}
	if sliver {
		s.timeline.addSliver(p)
	} else {
		s.timeline.add(p)
	}
	if measuring := r.measureAt.Load() >= 0 && r.since(now) >= time.Duration(r.measureAt.Load()); measuring && len(r.cfg.Abort) > 0 {
		s.live.add(s.iv, sec)
		if why := s.live.checkAbort(r.cfg, r.since(now)-time.Duration(r.measureAt.Load())); why != "" && r.aborted.CompareAndSwap(nil, &why) {
			r.stop(stopAbort)
		}
	}

	s.calls += p.Calls
	s.errors += p.Errors
	for c := range numClasses {
		s.classes[c] += s.iv.counts[c]
	}
	if r.cfg.Progress != nil {
		pr := Progress{
			Elapsed: r.since(now),
			Warmup:  r.measureAt.Load() < 0 || r.since(now) < time.Duration(r.measureAt.Load()),
			Calls:   s.calls, Errors: s.errors, Count: r.cfg.Count,
			ErrorClasses: errorCounts(&s.classes),
			Last:         p,
			Latency:      s.iv.latency, Service: s.iv.service,
		}
		if r.cfg.MethodHistograms {
			pr.Connects = s.connectsSoFar()
		}
		for _, sl := range r.slots {
			pr.Supervision.add(sl.sup.snapshot(now))
		}
		if r.open && !r.stopped() {
			due := int64(math.Ceil(r.prof.countAt(min(r.since(now), r.prof.end)) - 1e-9))
			pr.Behind = max(0, due-r.tickets.Load())
		}
		if r.prof.end != forever {
			pr.Planned = r.prof.end
			if !r.open {
				pr.Planned += time.Duration(max(r.measureAt.Load(), 0))
			}
		}
		r.cfg.Progress(pr)
	}
}

func (s *sampler) sampleProcesses(p *Point, sec float64) {
	if !s.procs {
		return
	}
	cur, ok := sampleTree()
	if !ok {
		return
	}
	if sec > 0 {
		p.ServerCPU = max(0, cur.CPUSeconds-s.prev.CPUSeconds) / sec * 100
		p.ClientCPU = max(0, cur.SelfCPUSeconds-s.prev.SelfCPUSeconds) / sec * 100
	}
	s.prev = cur
	if cur.Processes == 0 {
		return
	}
	p.ServerRSS = cur.RSS
	ps := &s.proc
	if !s.procSeen {
		s.procSeen = true
		ps.RSSFirst = cur.RSS
	}
	s.procSamples++
	ps.Processes = max(ps.Processes, cur.Processes)
	ps.CPUPercentMax = max(ps.CPUPercentMax, p.ServerCPU)
	ps.RSSLast = cur.RSS
	ps.RSSMax = max(ps.RSSMax, cur.RSS)
	ps.RSSPerProcessMax = max(ps.RSSPerProcessMax, cur.MaxRSS)
}

// processStats are the server processes' totals (nil if none were seen).
func (s *sampler) processStats(elapsed time.Duration) *ProcStats {
	if !s.procSeen {
		return nil
	}
	ps := s.proc
	ps.CPUSeconds = max(0, s.prev.CPUSeconds-s.first.CPUSeconds)
	if elapsed > 0 {
		ps.CPUPercent = ps.CPUSeconds / elapsed.Seconds() * 100
	}
	return &ps
}

// clientStats are this process's figures.
func (s *sampler) clientStats(elapsed time.Duration) ClientStats {
	cs := ClientStats{HeapBytesMax: s.heapMax, Cores: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}
	if s.procs {
		cs.CPUSeconds = max(0, s.prev.SelfCPUSeconds-s.first.SelfCPUSeconds)
		if elapsed > 0 {
			cs.CPUPercent = cs.CPUSeconds / elapsed.Seconds() * 100
		}
	}
	return cs
}
