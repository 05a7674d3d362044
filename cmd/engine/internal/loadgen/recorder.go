package loadgen

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// methodStats are one request kind's figures in one session. Histograms
// are sparse (packed): their memory is bounded by the latency range, not
// by the number of calls.
type methodStats struct {
	service *hdrhistogram.PackedHistogram
	// latency is from the scheduled send time (open model only; in the
	// closed model it is the service time, and this is nil).
	latency  *hdrhistogram.PackedHistogram
	counts   [numClasses]int64
	rpcCodes map[int64]int64
	firstErr [numClasses]string
}

// slotStats is one session's tally. The session's callers record under
// its mutex (contention stays within one session's few callers); the
// sampler takes the interval figures under it once per interval.
type slotStats struct {
	mu      sync.Mutex
	methods []*methodStats // by request index, created on first use
	flows   []*flowStats   // by flow index, created on first use
	// sendLag is set in the open model only (and says which model this is).
	sendLag   *hdrhistogram.PackedHistogram
	late      int64
	lateAfter time.Duration // Config.LateAfter
	// lastDone is when the session's last measured answer came, since the
	// run's start: kept here, under the mutex record takes anyway, rather
	// than in a counter every caller of every session would write.
	lastDone time.Duration
	// lastSent is when the session sent its last measured call, since the
	// run's start: the end of the time sending took, which rates of sends
	// are over.
	lastSent time.Duration

	// The current interval, reset by the sampler.
	ivLatency, ivService *hdrhistogram.PackedHistogram
	ivCounts             [numClasses]int64
	ivLate               int64
}

func newSlotStats(nreq int, open bool, lateAfter time.Duration) *slotStats {
	s := &slotStats{
		methods:   make([]*methodStats, nreq),
		ivService: newPacked(),
		lateAfter: lateAfter,
	}
	if open {
		s.sendLag = newPacked()
		s.ivLatency = newPacked()
	}
	return s
}

// sample is one measured call.
type sample struct {
	req   int
	class Class
	err   error // nil for OK; kept only as the class's first example
	timed bool  // false when no request was sent (a template failed)
	// scheduled is set for a call that had a scheduled time of its own
	// (the mix's calls; not a flow's steps, whose iteration has it): only
	// those count in the open model's send lag and late calls.
	scheduled bool
	service   time.Duration
	latency   time.Duration // open model: from the scheduled time
	lag       time.Duration // open model: sent this long after its schedule
	done      time.Duration // when the answer came, since the run's start
}

func (s *slotStats) record(x *sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	open := s.sendLag != nil
	m := s.methods[x.req]
	if m == nil {
		m = &methodStats{service: newPacked()}
		if open {
			m.latency = newPacked()
		}
		s.methods[x.req] = m
	}
	m.counts[x.class]++
	s.ivCounts[x.class]++
	if x.class == RPCError {
		if m.rpcCodes == nil {
			m.rpcCodes = map[int64]int64{}
		}
		m.rpcCodes[rpcCode(x.err)]++
	}
	if x.class != OK && m.firstErr[x.class] == "" && x.err != nil {
		m.firstErr[x.class] = x.err.Error()
	}
	if !x.timed {
		return
	}
	s.lastDone = max(s.lastDone, x.done)
	s.lastSent = max(s.lastSent, x.done-x.service)
	svc := micros(x.service)
	_ = m.service.RecordValue(svc) // cannot fail: clamped to the bounds
	_ = s.ivService.RecordValue(svc)
	if open {
		lat := micros(x.latency)
		_ = m.latency.RecordValue(lat)
		_ = s.ivLatency.RecordValue(lat)
		if x.scheduled {
			s.recordLagLocked(x.lag)
		}
	}
}

// recordLagLocked counts one scheduled arrival's send lag.
func (s *slotStats) recordLagLocked(lag time.Duration) {
	_ = s.sendLag.RecordValue(micros(lag))
	if lag > s.lateAfter {
		s.late++
		s.ivLate++
	}
}

// interval is what the sampler takes from all sessions once per interval.
type interval struct {
	latency, service *hdrhistogram.Histogram // dense, reused
	counts           [numClasses]int64
	late             int64
}

func newInterval(open bool) *interval {
	iv := &interval{service: NewHistogram()}
	if open {
		iv.latency = NewHistogram()
	}
	return iv
}

func (iv *interval) reset() {
	iv.service.Reset()
	if iv.latency != nil {
		iv.latency.Reset()
	}
	iv.counts = [numClasses]int64{}
	iv.late = 0
}

// drainInto moves the session's interval figures into iv and starts a
// new interval. The packed interval histograms keep their storage.
func (s *slotStats) drainInto(iv *interval) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ivService.MergeInto(iv.service)
	s.ivService.Reset()
	if s.ivLatency != nil {
		s.ivLatency.MergeInto(iv.latency)
		s.ivLatency.Reset()
	}
	for c := range numClasses {
		iv.counts[c] += s.ivCounts[c]
	}
	s.ivCounts = [numClasses]int64{}
	iv.late += s.ivLate
	s.ivLate = 0
}

// histogramBytes is the memory the session's histograms hold.
func (s *slotStats) histogramBytes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range []*hdrhistogram.PackedHistogram{s.sendLag, s.ivLatency, s.ivService} {
		if h != nil {
			n += h.GetMemorySize()
		}
	}
	for _, m := range s.methods {
		if m == nil {
			continue
		}
		n += m.service.GetMemorySize()
		if m.latency != nil {
			n += m.latency.GetMemorySize()
		}
	}
	for _, f := range s.flows {
		if f != nil {
			n += f.latency.GetMemorySize()
		}
	}
	return n
}
