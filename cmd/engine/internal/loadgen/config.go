package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Model is how calls are started.
type Model string

const (
	// Closed: every session keeps Concurrency calls in flight, starting
	// the next as soon as one returns. Throughput is whatever the server
	// allows; latency is service time (there is no schedule to miss).
	Closed Model = "closed"
	// Open: calls are scheduled at a total arrival rate, whatever the
	// server does, and sent by whichever session has a free slot (at most
	// Concurrency in flight per session). Latency is measured from the
	// scheduled send time, so a stall delays, and is charged to, every call
	// that should have been sent during it: no coordinated omission.
	Open Model = "open"
)

// Config describes one run. At least one of Duration, Count or Stages must
// bound it (whichever ends first).
type Config struct {
	// Engine configures the engine the run creates.
	Engine mcpengine.Config
	// Target returns session i's configuration (i from 0). Run names the
	// session "load-i" when Name is empty. Every session needs its own
	// connection, so a Server target with a command starts one subprocess
	// per session.
	Target func(i int) mcpengine.SessionConfig
	// Label describes the target in the Result.
	Label string

	// Model is Closed or Open (default: Open if Rate is set, else Closed).
	Model Model
	// Sessions (default 1) and Concurrency, the calls in flight per
	// session (default 1; in the open model, the most that may be).
	Sessions    int
	Concurrency int
	// Rate is the open model's total arrival rate, calls per second over
	// all sessions together (never per session or per worker).
	Rate float64
	// Stages ramp the level linearly from StartLevel: the arrival rate in
	// the open model, the number of active sessions in the closed one.
	// With stages the run lasts their total duration, and Rate or
	// Sessions are taken from them.
	Stages     []Stage
	StartLevel float64

	// Duration is the measured time; Count the number of measured calls.
	// Calls under way when the run ends complete and count, for
	// GracefulStop at most. In the open model the duration bounds the
	// run: a call due in it that no session could start before it ended
	// is dropped (Schedule.Dropped, k6's dropped_iterations), not sent
	// late.
	Duration time.Duration
	Count    int64
	// GracefulStop is how long the calls under way when the run ends (its
	// duration or an abort; a count waits for the calls it counts) may
	// still take (k6's gracefulStop;
	// default DefaultGracefulStop, negative: as long as their timeout).
	// Those it cuts off are counted in Result.CutOff and not measured.
	GracefulStop time.Duration
	// WarmupDuration or WarmupCount run first, at the starting level, and
	// are not measured.
	WarmupDuration time.Duration
	WarmupCount    int64

	// Churn, if set, closes each session after this many calls and opens
	// a new one (a new server process for stdio targets), for the whole
	// run: per-session leaks in the server show up as growing memory.
	Churn int64

	// Workload is the mix of requests. If nil, every call is Method
	// (default tools/call) with Tool (default echo) and Args.
	Workload *Workload
	Method   string
	Tool     string
	Args     messages.RawMessage

	// NoOutputCheck turns off validating tools/call results against the
	// tools' outputSchema.
	NoOutputCheck bool
	// Abort are thresholds judged at every Interval on the measured calls
	// so far (live metrics only: see LiveMetric); the first one crossed
	// stops the run, which Result.Aborted then says. AbortGrace is how
	// much measured time passes before they are judged (k6's
	// delayAbortEval).
	Abort      []*Threshold
	AbortGrace time.Duration

	// NoPreflight starts the run even when tools/list shows that a tool
	// called is missing or that its arguments do not fit its inputSchema
	// (to load-test a server's error paths); otherwise Run refuses with a
	// *PreflightError.
	NoPreflight bool
	// NoProcessStats turns off sampling the CPU and memory of the server
	// processes the engine started.
	NoProcessStats bool

	// Timeout is each call's timeout (0: the engine's RequestTimeout).
	Timeout time.Duration
	// ConnectTimeout bounds each session's connect (default 10s).
	ConnectTimeout time.Duration
	// CloseTimeout bounds closing the engine at the end (default 10s).
	CloseTimeout time.Duration
	// LateAfter is how far behind its scheduled time an open-model call
	// may be sent before it counts as late (default 10ms).
	LateAfter time.Duration

	// Interval is the period of the timeline and of Progress (default 1s).
	Interval time.Duration
	// Progress, if set, is called once per Interval with the run so far,
	// from the run's sampling goroutine (it must not block for long).
	Progress func(Progress)
	// Ready, if set, is called once the sessions are connected and the
	// checks passed; it returns the wall-clock instant the run's clock
	// starts, and the run waits for it. Generators given one instant begin
	// together (a distributed run's members); each converts it once to its
	// own monotonic clock, so a wall clock stepped during the run moves
	// nothing. An error ends the run before it starts.
	Ready func(ctx context.Context) (time.Time, error)
	// MethodHistograms keeps each request kind's, each flow's and each
	// step's histograms (MethodResult.HDR, FlowResult.HDR) and the send
	// lag's, the connects' and the handshakes' (HDR.SendLag, HDR.Connect,
	// HDR.Handshake), and reports the connects so far in
	// Progress.Connects, for a caller that merges Results (a distributed
	// run's coordinator).
	MethodHistograms bool

	// MaxTimelinePoints bounds the timeline (default 1200): when full,
	// neighbouring points are merged and the interval doubles, so memory
	// stays flat however long the run.
	MaxTimelinePoints int
}

// DefaultLateAfter is Config.LateAfter's default.
const DefaultLateAfter = 10 * time.Millisecond

// DefaultGracefulStop is Config.GracefulStop's default: long enough for a
// healthy call to finish, short enough that a stalled server does not
// hold the run for a whole call timeout (30 s by default).
const DefaultGracefulStop = 10 * time.Second

func (c *Config) withDefaults() error {
	if c.Target == nil {
		return errors.New("loadgen: no Target")
	}
	if c.Model == "" {
		c.Model = Closed
		if c.Rate > 0 {
			c.Model = Open
		}
	}
	switch c.Model {
	case Closed:
		if c.Rate > 0 {
			return errors.New("loadgen: Rate applies to the open model")
		}
	case Open:
		if c.Rate <= 0 && len(c.Stages) == 0 {
			return errors.New("loadgen: the open model needs a Rate or Stages")
		}
		if c.Rate > 0 && len(c.Stages) > 0 {
			return errors.New("loadgen: give a Rate or Stages, not both")
		}
	default:
		return fmt.Errorf("loadgen: unknown model %q", c.Model)
	}
	if c.Sessions < 0 || c.Concurrency < 0 || c.Count < 0 || c.Duration < 0 ||
		c.WarmupCount < 0 || c.WarmupDuration < 0 || c.Churn < 0 || c.Rate < 0 || math.IsNaN(c.Rate) {
		return errors.New("loadgen: negative setting")
	}
	if c.WarmupCount > 0 && c.WarmupDuration > 0 {
		return errors.New("loadgen: give a warm-up duration or count, not both")
	}
	if len(c.Stages) > 0 {
		if c.Duration > 0 {
			return errors.New("loadgen: with Stages the run lasts their total duration; give no Duration")
		}
		if (c.WarmupCount > 0 || c.WarmupDuration > 0) && c.StartLevel <= 0 {
			return errors.New("loadgen: a warm-up runs at the stages' start level, which is 0: start the stages from a level (e.g. 50,10s:100)")
		}
		if c.Model == Closed {
			peak := c.StartLevel
			for _, s := range c.Stages {
				peak = max(peak, s.Target)
			}
			c.Sessions = max(c.Sessions, int(math.Ceil(peak)))
		}
	}
	if c.Sessions <= 0 {
		c.Sessions = 1
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 1
	}
	if c.Duration <= 0 && c.Count <= 0 && len(c.Stages) == 0 {
		return errors.New("loadgen: set a Duration or a Count")
	}
	if c.Workload == nil {
		w, err := SingleRequest(c.Method, c.Tool, c.Args)
		if err != nil {
			return err
		}
		c.Workload = w
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = 10 * time.Second
	}
	if c.LateAfter <= 0 {
		c.LateAfter = DefaultLateAfter
	}
	if c.GracefulStop == 0 {
		c.GracefulStop = DefaultGracefulStop
	}
	if c.Interval <= 0 {
		c.Interval = time.Second
	}
	if c.MaxTimelinePoints <= 1 {
		c.MaxTimelinePoints = 1200
	}
	return nil
}

// warmupFor is the open model's warm-up length: a count warm-up takes
// as long as its calls take to arrive at the starting rate.
func (c *Config) warmupFor() time.Duration {
	if c.WarmupCount > 0 && c.Model == Open {
		rate := c.startLevel()
		return time.Duration(float64(c.WarmupCount) / rate * float64(time.Second))
	}
	return c.WarmupDuration
}

// startLevel is the level before the stages, or the constant one.
func (c *Config) startLevel() float64 {
	switch {
	case len(c.Stages) > 0:
		return c.StartLevel
	case c.Model == Open:
		return c.Rate
	}
	return float64(c.Sessions)
}

// profile is the level over time since the run's start: in the open model
// the warm-up at the starting rate first; then the stages, or the
// constant rate or session count for the duration (for ever if only a
// count ends the run). The closed model's warm-up is a phase of its own
// before the profile (its length is known only when it ends).
func (c *Config) profile() *profile {
	start := c.startLevel()
	var pieces []segment
	if w := c.warmupFor(); w > 0 && c.Model == Open {
		pieces = append(pieces, segment{dur: w, from: start, to: start})
	}
	switch {
	case len(c.Stages) > 0:
		level := start
		for _, s := range c.Stages {
			pieces = append(pieces, segment{dur: s.Duration, from: level, to: s.Target})
			level = s.Target
		}
	case c.Duration > 0:
		pieces = append(pieces, segment{dur: c.Duration, from: start, to: start})
	default:
		pieces = append(pieces, segment{dur: forever, from: start, to: start})
	}
	return newProfile(pieces)
}
