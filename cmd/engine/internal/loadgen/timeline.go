package loadgen

// Point is one interval of the run. Latencies are in microseconds; in the
// closed model the latency and service figures are the same.
type Point struct {
	// T is the end of the interval in seconds since the run started
	// (warm-up included: see Result.Warmup); Seconds its length.
	T       float64 `json:"t_s"`
	Seconds float64 `json:"interval_s"`

	Calls          int64   `json:"calls"`
	Errors         int64   `json:"errors"`
	CallsPerSecond float64 `json:"calls_per_s"`
	Late           int64   `json:"late"`

	P50US        int64 `json:"p50_us"`
	P90US        int64 `json:"p90_us"`
	P99US        int64 `json:"p99_us"`
	MaxUS        int64 `json:"max_us"`
	ServiceP50US int64 `json:"service_p50_us"`
	ServiceP99US int64 `json:"service_p99_us"`

	// InFlight is the number of calls under way at the interval's end,
	// Sessions the number of connected sessions, Target the profile's
	// level (arrival rate in the open model, active sessions in the
	// closed one).
	InFlight int64   `json:"in_flight"`
	Sessions int     `json:"sessions"`
	Target   float64 `json:"target"`
	// DuePerSecond is the open model's scheduled rate averaged over the
	// interval (calls that fell due in it over its length): what
	// CallsPerSecond is to be held against, on the same basis, also
	// while the rate ramps.
	DuePerSecond float64 `json:"due_per_s,omitempty"`

	// ServerCPU is the server processes' CPU use in percent of one core,
	// ServerRSS their resident memory together (stdio targets).
	ServerCPU float64 `json:"server_cpu_pct,omitempty"`
	ServerRSS int64   `json:"server_rss_bytes,omitempty"`
	// ClientCPU is this process's CPU use in percent of one core.
	ClientCPU float64 `json:"client_cpu_pct"`

	// merged counts the intervals a point stands for.
	merged int
}

// merge folds the next point q into p. Counts add up; p50 becomes the
// call-weighted mean and p90/p99/max the worst of the two (an upper
// bound: percentiles cannot be merged exactly without the histograms).
func (p *Point) merge(q Point) {
	n1, n2 := float64(p.Calls), float64(q.Calls)
	if n1+n2 > 0 {
		p.P50US = int64((float64(p.P50US)*n1 + float64(q.P50US)*n2) / (n1 + n2))
		p.ServiceP50US = int64((float64(p.ServiceP50US)*n1 + float64(q.ServiceP50US)*n2) / (n1 + n2))
	}
	w1, w2 := p.Seconds, q.Seconds
	if w1+w2 > 0 {
		p.Target = (p.Target*w1 + q.Target*w2) / (w1 + w2)
		p.DuePerSecond = (p.DuePerSecond*w1 + q.DuePerSecond*w2) / (w1 + w2)
		p.ServerCPU = (p.ServerCPU*w1 + q.ServerCPU*w2) / (w1 + w2)
		p.ClientCPU = (p.ClientCPU*w1 + q.ClientCPU*w2) / (w1 + w2)
	}
	p.P90US, p.P99US, p.MaxUS = max(p.P90US, q.P90US), max(p.P99US, q.P99US), max(p.MaxUS, q.MaxUS)
	p.ServiceP99US = max(p.ServiceP99US, q.ServiceP99US)
	p.Calls += q.Calls
	p.Errors += q.Errors
	p.Late += q.Late
	p.T = q.T
	p.Seconds += q.Seconds
	if p.Seconds > 0 {
		p.CallsPerSecond = float64(p.Calls) / p.Seconds
	}
	p.InFlight, p.Sessions = q.InFlight, q.Sessions
	p.ServerRSS = max(p.ServerRSS, q.ServerRSS)
	p.merged += max(q.merged, 1)
}

// Timeline is the run's history at a bounded number of points: when it
// is full, neighbours merge and each point stands for twice the time.
type Timeline struct {
	// IntervalSeconds is the time one point stands for (the last point
	// may be shorter).
	IntervalSeconds float64 `json:"interval_s"`
	Points          []Point `json:"points"`

	limit   int
	factor  int   // intervals per point
	pending Point // intervals not yet making a full point
}

func newTimeline(interval float64, limit int) *Timeline {
	return &Timeline{IntervalSeconds: interval, limit: limit, factor: 1, Points: []Point{}}
}

// add appends one interval.
func (t *Timeline) add(p Point) {
	p.merged = 1
	if t.pending.merged == 0 {
		t.pending = p
	} else {
		t.pending.merge(p)
	}
	if t.pending.merged < t.factor {
		return
	}
	t.Points = append(t.Points, t.pending)
	t.pending = Point{}
	if len(t.Points) >= t.limit {
		t.halve()
	}
}

// addSliver folds the last moments of a run, too short to chart as a
// point of their own, into the latest point (as no extra interval), so
// that the timeline still adds up to the run's calls.
func (t *Timeline) addSliver(p Point) {
	latest := &t.pending
	if t.pending.merged == 0 {
		if len(t.Points) == 0 {
			t.add(p)
			return
		}
		latest = &t.Points[len(t.Points)-1]
	}
	merged := latest.merged
	latest.merge(p)
	latest.merged = merged
}

// halve merges neighbouring points.
func (t *Timeline) halve() {
	out := t.Points[:0]
	for i := 0; i < len(t.Points); i += 2 {
		p := t.Points[i]
		if i+1 < len(t.Points) {
			p.merge(t.Points[i+1])
		}
		out = append(out, p)
	}
	t.Points = out
	t.factor *= 2
	t.IntervalSeconds *= 2
	// An odd last point stands for fewer intervals: keep filling it.
	if n := len(t.Points); n > 0 && t.Points[n-1].merged < t.factor {
		t.pending = t.Points[n-1]
		t.Points = t.Points[:n-1]
	}
}

// finish flushes a partial point.
func (t *Timeline) finish() {
	if t.pending.merged > 0 {
		t.Points = append(t.Points, t.pending)
		t.pending = Point{}
	}
}
