package distributed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed/loadpb"
)

// Options configure a distributed run's coordinator.
type Options struct {
	// System is the coordinator's actor system, its remote started and
	// reachable from the members (they send their reports to it).
	System *actor.ActorSystem
	// Members are the addresses of the members that run load workers
	// (the cluster members offering Kind).
	Members []string
	// Config is the run as the coordinator's flags describe it (the whole
	// load: all sessions, the total rate and count). Its Progress is
	// called once per merged interval.
	Config *loadgen.Config
	// Args are the engine load flags each member builds its share from.
	Args []string
	// Left, if set, delivers the addresses of members that the cluster's
	// membership says left.
	Left <-chan string
	// ReadyTimeout bounds the members' preparation (connecting their
	// sessions); default: the connect timeout plus 20s.
	ReadyTimeout time.Duration
	// StartLead is how far ahead of the Go message the agreed start
	// instant lies (default 500ms): time for Go to reach every member.
	StartLead time.Duration
	// SilentAfter is how long a running member may send nothing before it
	// counts as lost (default: 5 intervals plus 10s).
	SilentAfter time.Duration
}

// ErrNoMembers is returned when no member could run its share.
var ErrNoMembers = errors.New("distributed: no member could run the load")

// coordinator is one run's state. The coordinator actor feeds it the
// members' messages; Run's goroutine drives the phases. All fields below
// mu are guarded by it.
type coordinator struct {
	opts   Options
	id     string
	pid    *actor.PID
	wakeCh chan struct{} // a member changed phase (buffered 1)

	mu       sync.Mutex
	members  map[string]*member
	order    []string
	ticks    map[int64]*tick
	emitted  int64
	timeline *loadgen.TimelineBuilder
	aborted  bool
	count    int64 // the run's planned measured calls (Progress.Count)
}

// Run runs cfg's load on the members and returns the merged Result. It
// fails when the load cannot be split, or no member could run its share;
// a member lost during the run makes the Result partial instead.
func Run(ctx context.Context, opts Options) (*loadgen.Result, error) {
	cfg := opts.Config
	shares, err := split(cfg, len(opts.Members))
	if err != nil {
		return nil, err
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = cmpOr(cfg.ConnectTimeout, loadgen.DefaultConnectTimeout) + 20*time.Second
	}
	if opts.StartLead <= 0 {
		opts.StartLead = 500 * time.Millisecond
	}
	interval := cmpOr(cfg.Interval, time.Second)
	if opts.SilentAfter <= 0 {
		opts.SilentAfter = 5*interval + 10*time.Second
	}
	c := &coordinator{
		opts: opts, id: newRunID(), wakeCh: make(chan struct{}, 1),
		members: map[string]*member{}, ticks: map[int64]*tick{},
		timeline: loadgen.NewTimelineBuilder(interval, cfg.MaxTimelinePoints),
		count:    cfg.Count,
	}
	for i, addr := range opts.Members {
		c.members[addr] = &member{addr: addr, share: shares[i], pid: actor.NewPID(addr, WorkerName)}
		c.order = append(c.order, addr)
	}
	pid, err := opts.System.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &coordActor{c: c} }),
		"mcpengine-loadcoord-"+c.id)
	if err != nil {
		return nil, fmt.Errorf("distributed: spawning the coordinator: %w", err)
	}
	c.pid = pid
	defer func() { _ = opts.System.Root.StopFuture(pid).Wait() }()

	c.prepare(ctx)
	if !c.started(ctx) {
		return nil, c.noMembers(ctx)
	}
	c.wait(ctx)
	return c.result(ctx)
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func newRunID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// wake tells Run's goroutine that a member changed phase.
func (c *coordinator) wake() {
	select {
	case c.wakeCh <- struct{}{}:
	default:
	}
}

// prepare sends every member its share; the coordinator actor watches
// each worker first, so a member whose endpoint is gone is reported.
func (c *coordinator) prepare(ctx context.Context) {
	root := c.opts.System.Root
	for _, addr := range c.order {
		m := c.members[addr]
		root.Send(c.pid, &watchWorker{pid: m.pid})
		sh := m.share
		root.Send(m.pid, &loadpb.Prepare{
			RunId: c.id, CoordinatorAddress: c.pid.Address, CoordinatorId: c.pid.Id, Member: addr,
			Args: c.opts.Args, Sessions: int32(sh.sessions), Rate: sh.rate, Count: sh.count,
			WarmupCount: sh.warmupCount, LevelScale: sh.levelScale,
		})
	}
}

// started waits until every member is ready (or failed), then sends Go
// with one start instant to the ready ones; false when none is.
func (c *coordinator) started(ctx context.Context) bool {
	deadline := time.NewTimer(c.opts.ReadyTimeout)
	defer deadline.Stop()
	for !c.all(func(m *member) bool { return m.phase != preparing }) {
		select {
		case <-c.wakeCh:
		case addr := <-c.opts.Left:
			c.leave(addr, "the cluster's membership says it left")
		case <-deadline.C:
			c.failPreparing(fmt.Sprintf("not ready within %v", c.opts.ReadyTimeout))
		case <-ctx.Done():
			c.failPreparing("the run was interrupted before it started")
			c.stopAll("interrupted")
			return false
		}
	}
	at := time.Now().Add(c.opts.StartLead)
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, addr := range c.order {
		m := c.members[addr]
		if m.phase == ready {
			m.phase, m.heard = running, time.Now()
			c.opts.System.Root.Send(m.pid, &loadpb.Go{RunId: c.id, StartUnixNano: at.UnixNano()})
			n++
		}
	}
	return n > 0
}

// wait waits until every member finished, failed or was lost. An
// interrupted run stops the members and waits for their results.
func (c *coordinator) wait(ctx context.Context) {
	check := time.NewTicker(cmpOr(c.opts.Config.Interval, time.Second))
	defer check.Stop()
	done := ctx.Done()
	var grace <-chan time.Time
	for !c.all((*member).done) {
		select {
		case <-c.wakeCh:
			if c.abortedNow() {
				c.stopAll("another member crossed an abort threshold")
			}
		case addr := <-c.opts.Left:
			c.leave(addr, "the cluster's membership says it left")
		case <-check.C:
			c.silent()
		case <-done:
			done = nil
			c.stopAll("the coordinator was interrupted")
			t := time.NewTimer(cmpOr(c.opts.Config.CloseTimeout, 10*time.Second) + 10*time.Second)
			defer t.Stop()
			grace = t.C
		case <-grace:
			c.leaveRunning("no result after the run was stopped")
		}
	}
}

func (c *coordinator) all(f func(*member) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if !f(m) {
			return false
		}
	}
	return true
}

func (c *coordinator) failPreparing(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.phase == preparing {
			m.phase, m.err = failed, why
			c.opts.System.Root.Send(m.pid, &loadpb.Stop{RunId: c.id, Reason: why})
		}
	}
}

func (c *coordinator) stopAll(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if !m.done() {
			c.opts.System.Root.Send(m.pid, &loadpb.Stop{RunId: c.id, Reason: why})
		}
	}
}

// abortedNow reports, once, that a member's result says an abort
// threshold stopped it: the others stop too, as one host would.
func (c *coordinator) abortedNow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aborted {
		return false
	}
	for _, m := range c.members {
		if m.result != nil && m.result.Aborted != "" {
			c.aborted = true
			return true
		}
	}
	return false
}

// silent counts a running member that has not reported for SilentAfter
// as lost: a host cut off without its connection breaking.
func (c *coordinator) silent() {
	c.mu.Lock()
	var quiet []string
	for _, m := range c.members {
		if m.phase == running && time.Since(m.heard) > c.opts.SilentAfter {
			quiet = append(quiet, m.addr)
		}
	}
	c.mu.Unlock()
	for _, addr := range quiet {
		c.leave(addr, fmt.Sprintf("no report for %v", c.opts.SilentAfter))
	}
}

func (c *coordinator) leaveRunning(why string) {
	c.mu.Lock()
	var left []string
	for _, m := range c.members {
		if !m.done() {
			left = append(left, m.addr)
		}
	}
	c.mu.Unlock()
	for _, addr := range left {
		c.leave(addr, why)
	}
}

// leave marks a member gone: lost if it was past Prepare (its calls so
// far count), failed before.
func (c *coordinator) leave(addr, why string) {
	var emit []loadgen.Progress
	c.mu.Lock()
	m := c.members[addr]
	if m != nil && !m.done() {
		if m.phase == preparing || m.phase == ready {
			m.phase = failed
		} else {
			m.phase = lost
		}
		m.err = why
		emit = c.emitLocked(false)
	}
	c.mu.Unlock()
	c.progress(emit)
	c.wake()
}

// onReady, onProgress and onDone take the members' messages (from the
// coordinator actor).
func (c *coordinator) onReady(r *loadpb.Ready) {
	c.mu.Lock()
	if m := c.members[r.Member]; m != nil && r.RunId == c.id && m.phase == preparing {
		m.phase, m.heard = ready, time.Now()
	}
	c.mu.Unlock()
	c.wake()
}

// onProgress records a member's interval; it returns the member's worker
// to acknowledge it to (nil when the report was not recorded).
func (c *coordinator) onProgress(p *loadpb.Progress) *actor.PID {
	var emit []loadgen.Progress
	var ack *actor.PID
	c.mu.Lock()
	if m := c.members[p.Member]; m != nil && p.RunId == c.id && m.phase == running {
		m.heard = time.Now()
		if lat, svc, ok := m.progress(p); ok {
			ack = m.pid
			t := c.ticks[p.Seq]
			if p.Seq <= c.emitted {
				// Merged without it (the member had been given up on):
				// its counters above still count.
				t = &tick{lat: loadgen.NewHistogram(), svc: loadgen.NewHistogram(), from: map[string]bool{}}
			} else if t == nil {
				t = &tick{lat: loadgen.NewHistogram(), svc: loadgen.NewHistogram(), from: map[string]bool{}}
				c.ticks[p.Seq] = t
			}
			addPoint(&t.point, pointOf(p))
			t.lat.Merge(lat)
			t.svc.Merge(svc)
			t.from[m.addr] = true
			emit = c.emitLocked(false)
		}
	}
	c.mu.Unlock()
	c.progress(emit)
	return ack
}

func (c *coordinator) onDone(d *loadpb.Done) {
	var emit []loadgen.Progress
	c.mu.Lock()
	if m := c.members[d.Member]; m != nil && d.RunId == c.id && !m.done() {
		switch {
		case d.Error != "":
			// A member that had started keeps what it reported.
			if m.phase == running {
				m.phase = lost
			} else {
				m.phase = failed
			}
			m.err = d.Error
		default:
			r, err := resultOf(d.ResultJson)
			if err != nil {
				m.phase, m.err = lost, fmt.Sprintf("its result could not be read: %v", err)
			} else {
				m.phase, m.result = finished, r
			}
		}
		emit = c.emitLocked(false)
	}
	c.mu.Unlock()
	c.progress(emit)
	c.wake()
}

// emitLocked merges the intervals every member still running has
// reported, in order, into the timeline and the progress calls it
// returns; all flushes the rest (the run is over).
func (c *coordinator) emitLocked(all bool) []loadgen.Progress {
	var out []loadgen.Progress
	for {
		next := c.emitted + 1
		t := c.ticks[next]
		if t == nil {
			if !all || len(c.ticks) == 0 {
				return out
			}
			// A member's last interval may be missing (a sliver it did
			// not report): skip to the next one reported.
			c.emitted = next
			continue
		}
		if !all {
			for _, m := range c.members {
				if m.phase == running && !t.from[m.addr] {
					return out
				}
			}
		}
		delete(c.ticks, next)
		c.emitted = next
		withPercentiles(&t.point, t.lat, t.svc)
		c.timeline.Add(t.point)
		out = append(out, c.progressLocked(t.point))
	}
}

// progressLocked is the run so far as one Progress.
func (c *coordinator) progressLocked(p loadgen.Point) loadgen.Progress {
	pr := loadgen.Progress{Count: c.count, Last: p, Elapsed: time.Duration(p.T * float64(time.Second))}
	for _, m := range c.members {
		pr.Calls += m.calls
		pr.Errors += m.errors
		pr.ErrorClasses = pr.ErrorClasses.Plus(m.classes)
		pr.Planned = max(pr.Planned, m.planned)
		pr.Warmup = pr.Warmup || (m.phase == running && m.warmup)
	}
	// The members lost so far, in the order they were given, with the
	// calls their share made due since: the live view shows the loss
	// while the run goes on.
	measured := max(0, pr.Elapsed-c.opts.Config.WarmupDuration)
	for _, addr := range c.order {
		if m := c.members[addr]; m.phase == lost {
			pr.Lost = append(pr.Lost, loadgen.LostMember{Address: addr, Why: m.err, Owed: m.owed(c.opts.Config, measured)})
		}
	}
	return pr
}

// progress calls Config.Progress outside the lock.
func (c *coordinator) progress(ps []loadgen.Progress) {
	if f := c.opts.Config.Progress; f != nil {
		for _, p := range ps {
			f(p)
		}
	}
}

// noMembers is Run's error when no member started.
func (c *coordinator) noMembers(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var why []string
	for _, addr := range c.order {
		why = append(why, addr+": "+c.members[addr].err)
	}
	return fmt.Errorf("%w: %s", ErrNoMembers, strings.Join(why, "; "))
}

// result merges the members' figures into the run's Result.
func (c *coordinator) result(ctx context.Context) (*loadgen.Result, error) {
	c.mu.Lock()
	emit := c.emitLocked(true)
	parts := make([]loadgen.Part, 0, len(c.order))
	// owedSchedule is the open-model account of the members that did not
	// finish, whose figures carry none: their share's calls due, and
	// those they made.
	var owedSchedule loadgen.Schedule
	for _, addr := range c.order {
		m := c.members[addr]
		mr := loadgen.MemberResult{Address: addr, Error: m.err, Sessions: m.share.sessions,
			Rate: m.share.rate, Count: m.share.count}
		switch m.phase {
		case finished:
			mr.Status = loadgen.MemberFinished
		case failed:
			mr.Status = loadgen.MemberFailed
		default:
			mr.Status = loadgen.MemberLost
		}
		if m.phase != finished {
			mr.Owed = m.owed(c.opts.Config, forever)
			if due, ok := m.due(c.opts.Config, forever); ok && c.opts.Config.Model == loadgen.Open {
				owedSchedule.Intended += due
				owedSchedule.Sent += due - mr.Owed
			}
		}
		parts = append(parts, loadgen.Part{Member: mr, Result: m.figures()})
	}
	timeline := c.timeline.Finish()
	c.mu.Unlock()
	c.progress(emit)

	res, err := loadgen.Merge(parts)
	if err != nil {
		return nil, err
	}
	res.StripMethodHistograms()
	cfg := c.opts.Config
	res.Target = cfg.Label
	res.Timeline = timeline
	res.Sessions = 0 // the members' shares (the closed model's stages give no -s)
	for _, m := range res.Members {
		res.Sessions += m.Sessions
	}
	if cfg.Model == loadgen.Open && len(cfg.Stages) == 0 {
		res.Rate = cfg.Rate
	}
	res.Stages = cfg.Stages
	if len(cfg.Stages) > 0 {
		res.StartLevel = cfg.StartLevel
	}
	res.Interrupted = ctx.Err() != nil
	if owedSchedule.Intended > 0 {
		if res.Schedule == nil {
			res.Schedule = &loadgen.Schedule{}
		}
		s := res.Schedule
		s.Intended += owedSchedule.Intended
		s.Sent += owedSchedule.Sent
		s.Unsent = max(0, s.Intended-s.Sent)
	}
	for _, m := range res.Members {
		if m.Status != loadgen.MemberFinished {
			w := fmt.Sprintf("member %s %s (%s): its share of %d sessions was not run to the end; %d calls it made before count",
				m.Address, m.Status, m.Error, m.Sessions, m.Calls)
			if m.Owed > 0 {
				w += fmt.Sprintf(", %d calls its share owed were never made", m.Owed)
			}
			res.Warnings = append(res.Warnings, w)
		}
	}
	return res, nil
}

// watchWorker asks the coordinator actor to watch a member's worker.
type watchWorker struct{ pid *actor.PID }

// memberGone is a worker's Terminated, posted again by the coordinator
// actor to itself: protoactor delivers Terminated as a system message,
// ahead of the user messages already queued, and those may be the dead
// member's last reports, which must count.
type memberGone struct{ addr, why string }

// coordActor receives the members' messages for one run. Messages:
//   - *watchWorker (Run): watch a member's worker.
//   - *loadpb.Ready, *loadpb.Progress, *loadpb.Done (members' workers).
//   - *actor.Terminated (protoactor): a worker or its member's endpoint
//     went away; handled as *memberGone (from itself), behind the reports
//     already queued.
type coordActor struct{ c *coordinator }

func (a *coordActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *watchWorker:
		ctx.Watch(m.pid)
	case *loadpb.Ready:
		a.c.onReady(m)
	case *loadpb.Progress:
		if pid := a.c.onProgress(m); pid != nil {
			ctx.Send(pid, &loadpb.ProgressAck{RunId: m.RunId, Seq: m.Seq, Calls: m.Calls})
		}
	case *loadpb.Done:
		a.c.onDone(m)
	case *actor.Terminated:
		why := "its load worker stopped"
		if m.Why == actor.TerminatedReason_AddressTerminated {
			why = "its endpoint became unreachable"
		}
		ctx.Send(ctx.Self(), &memberGone{addr: m.Who.Address, why: why})
	case *memberGone:
		a.c.leave(m.addr, m.why)
	}
}
