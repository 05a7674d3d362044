package distributed

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed/loadpb"
)

// Member phases, as the coordinator sees them.
type phase int

const (
	preparing phase = iota // Prepare sent, Ready not yet come
	ready                  // sessions connected, waiting for Go
	running                // Go sent
	finished               // Done with a result
	lost                   // went away after Prepare; calls so far count
	failed                 // could not run its share (Done with an error)
)

// member is one member's part of the run: its share and what its reports
// said so far.
type member struct {
	addr  string
	share share
	pid   *actor.PID
	phase phase
	err   string
	// heard is when the member last reported (Ready or Progress).
	heard time.Time

	// From its Progress reports: cumulative counters and the intervals'
	// histograms merged (a lost member's figures).
	seq              int64
	elapsed, planned time.Duration
	warmup           bool
	calls, errors    int64
	classes          loadgen.ErrorCounts
	lat, svc         *hdrhistogram.Histogram
	connects         loadgen.ConnectsSoFar

	result *loadgen.Result // from Done
}

// tick is the members' interval number seq, merged as their reports come.
type tick struct {
	point    loadgen.Point
	lat, svc *hdrhistogram.Histogram
	from     map[string]bool // members that reported it
}

// done reports whether the member will send nothing more.
func (m *member) done() bool { return m.phase == finished || m.phase == lost || m.phase == failed }

// figures is what a member measured, as a Result Merge takes: its final
// result, or for a lost member its reports' counts and histograms.
func (m *member) figures() *loadgen.Result {
	if m.result != nil {
		return m.result
	}
	if m.phase != lost || m.lat == nil {
		return nil
	}
	measured := m.elapsed
	if m.warmup {
		measured = 0
	}
	r := &loadgen.Result{
		Calls: m.calls, Failed: m.errors, OK: m.calls - m.errors, Errors: m.classes,
		Duration: measured, Seconds: measured.Seconds(),
		LatencyHist: m.lat, ServiceHist: m.svc,
	}
	if measured > 0 {
		r.CallsPerSecond = float64(r.Calls) / r.Seconds
	}
	m.connectFigures(r)
	return r
}

// due is how many measured calls m's share makes due by at (measured
// time; for ever: the whole run), and whether the share sets a number at
// all (a closed model bounded by time does not).
func (m *member) due(cfg *loadgen.Config, at time.Duration) (int64, bool) {
	if m.share.count > 0 {
		return m.share.count, true
	}
	if cfg.Model != loadgen.Open {
		return 0, false
	}
	end := cfg.Duration
	level := cfg.StartLevel
	var n float64
	if len(cfg.Stages) == 0 {
		n = m.share.rate * min(at, end).Seconds()
	} else {
		// The arrivals of a linear ramp: the area under it.
		var t time.Duration
		for _, st := range cfg.Stages {
			d := min(st.Duration, max(0, at-t))
			to := level + (st.Target-level)*d.Seconds()/st.Duration.Seconds()
			n += (level + to) / 2 * d.Seconds() * m.share.levelScale
			t += st.Duration
			level = st.Target
		}
	}
	return int64(math.Round(n)), true
}

// forever is "the whole run" for due and owed.
const forever = time.Duration(math.MaxInt64)

// owed is the calls of m's share made due by at that it did not make.
func (m *member) owed(cfg *loadgen.Config, at time.Duration) int64 {
	due, ok := m.due(cfg, at)
	if !ok {
		return 0
	}
	return max(0, due-m.calls)
}

// connectFigures fills a lost member's connects from its last report.
func (m *member) connectFigures(r *loadgen.Result) {
	c := m.connects
	r.Connect.Count, r.Connect.Failed = c.Count, c.Failed
	r.HDR.Connect, r.HDR.Handshake = c.Connect, c.Handshake
	if h, err := loadgen.DecodeHDR(c.Connect); err == nil {
		d := loadgen.Summarize(h)
		r.Connect.Min, r.Connect.Mean, r.Connect.P50, r.Connect.P99, r.Connect.Max = d.Min, d.Mean, d.P50, d.P99, d.Max
	}
	if h, err := loadgen.DecodeHDR(c.Handshake); err == nil {
		r.Handshake = loadgen.Summarize(h)
	}
}

// progress records one Progress report of m; it returns false for a
// report out of order (never expected: one sender, one endpoint).
func (m *member) progress(p *loadpb.Progress) (lat, svc *hdrhistogram.Histogram, ok bool) {
	if p.Seq <= m.seq {
		return nil, nil, false
	}
	lat, err := loadgen.DecodeHDR(string(p.LatencyHdr))
	if err != nil {
		return nil, nil, false
	}
	svc, err = loadgen.DecodeHDR(string(p.ServiceHdr))
	if err != nil {
		return nil, nil, false
	}
	if m.lat == nil {
		m.lat, m.svc = loadgen.NewHistogram(), loadgen.NewHistogram()
	}
	m.lat.Merge(lat)
	m.svc.Merge(svc)
	m.seq = p.Seq
	m.elapsed, m.planned, m.warmup = time.Duration(p.ElapsedNs), time.Duration(p.PlannedNs), p.Warmup
	m.calls, m.errors, m.classes = p.Calls, p.Errors, classesOf(p.Classes)
	m.connects = loadgen.ConnectsSoFar{Count: p.Connects, Failed: p.ConnectFailed,
		Connect: string(p.ConnectHdr), Handshake: string(p.HandshakeHdr)}
	return lat, svc, true
}
