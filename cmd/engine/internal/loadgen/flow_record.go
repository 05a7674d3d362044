package loadgen

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// flowStats are one flow's iterations in one session; its steps are
// counted as requests (methodStats), each under its own index.
type flowStats struct {
	// latency is the whole iteration, think time included (open model:
	// from the arrival's scheduled time).
	latency  *hdrhistogram.PackedHistogram
	counts   [numClasses]int64 // by the class of the iteration's first failed step
	firstErr [numClasses]string
	aborted  int64 // iterations ended early by a failed step (AbortOnFail)
}

// flowSample is one measured iteration.
type flowSample struct {
	flow    int
	class   Class // OK, or the first failed step's class
	err     error
	aborted bool
	latency time.Duration
	// lag is how late the iteration started (open model), counted as an
	// arrival's send lag.
	lag time.Duration
}

func (s *slotStats) recordFlow(x *flowSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.flows[x.flow]
	if f == nil {
		f = &flowStats{latency: newPacked()}
		s.flows[x.flow] = f
	}
	f.counts[x.class]++
	if x.class != OK && f.firstErr[x.class] == "" && x.err != nil {
		f.firstErr[x.class] = x.err.Error()
	}
	if x.aborted {
		f.aborted++
	}
	_ = f.latency.RecordValue(micros(x.latency))
	if s.sendLag != nil {
		s.recordLagLocked(x.lag)
	}
}
