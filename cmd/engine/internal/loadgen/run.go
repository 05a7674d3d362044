package loadgen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Why the run stopped starting calls.
const (
	stopNone  int32 = iota
	stopEnd         // the profile (duration, stages) ended
	stopCount       // the count was reached
	stopCtx         // the caller's context ended
	stopAbort       // an abort threshold was crossed
)

// runner is one run's state. Calls use the caller's ctx, so calls under
// way when the run stops still complete and count; stopCtx ends only the
// starting of new calls and connects.
type runner struct {
	cfg    *Config
	wl     *compiled
	eng    *mcpengine.Engine
	ctx    context.Context
	prof   *profile
	open   bool
	staged bool // closed model with stages: sessions come and go
	warmup time.Duration
	opts   []mcpengine.CallOption
	slots  []*slot
	// preciseSleepers counts the workers in preciseSleep (sleepUntil),
	// capped at maxPreciseSleepers.
	preciseSleepers atomic.Int32
	// aborted is why an abort threshold stopped the run (set once, by
	// the sampler, before stop(stopAbort)).
	aborted atomic.Pointer[string]

	start time.Time
	// startAt is Config.Ready's instant on this process's monotonic clock (zero:
	// the run starts when the sessions are ready).
	startAt time.Time
	// measureAt is when the measurement began, in ns since start (-1
	// during the closed model's warm-up).
	measureAt   atomic.Int64
	measureOnce sync.Once

	stopCtx    context.Context
	stopCancel context.CancelFunc
	// callCtx is the calls' context: the caller's, cut GracefulStop after
	// the run stopped (cause errGracefulStop). cutOff counts the calls it
	// cut.
	callCtx  context.Context
	cutCalls context.CancelCauseFunc
	cutOff   atomic.Int64
	stopOnce sync.Once
	stopWhy  atomic.Int32
	stopAt   atomic.Int64 // ns since start

	tickets  atomic.Int64 // claimed, warm-up included
	measured atomic.Int64 // measured claims (for Count)
	live     atomic.Int64 // connected sessions

	// active is the closed model's current session level; levelCh is
	// closed (and replaced) whenever it changes.
	active  atomic.Int64
	levelMu sync.Mutex
	levelCh chan struct{}

	connMu       sync.Mutex
	dialHist     *hdrhistogram.PackedHistogram
	handshake    *hdrhistogram.PackedHistogram
	connects     int64
	connectFails int64
	connectErr   string
	protocols    []ProtocolUse // what the connects negotiated, in order of first use

	warnings []string
}

// slot is one session index. Its goroutine owns sess; in churn mode it
// holds a succession of sessions.
type slot struct {
	idx      int
	name     string
	stats    *slotStats
	sess     *mcpengine.Session
	conn     int64 // connections made
	connects atomic.Int64
	// sup follows the engine's reconnects of the slot's sessions.
	sup supervision
	// inflight counts the session's calls under way: per session, so
	// that the callers of different sessions never write one cache line.
	inflight atomic.Int64
}

// Run connects the sessions, runs the calls, closes the engine and
// returns the measurements. It fails only if the configuration is invalid
// or the sessions needed at the start cannot connect; failed calls are
// counted, not returned. If ctx ends, the run stops early with
// Result.Interrupted set.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	wl, err := compileWorkload(cfg.Workload)
	if err != nil {
		return nil, err
	}
	r := &runner{
		cfg:       &cfg,
		wl:        wl,
		ctx:       ctx,
		prof:      cfg.profile(),
		open:      cfg.Model == Open,
		staged:    cfg.Model == Closed && len(cfg.Stages) > 0,
		warmup:    cfg.warmupFor(),
		dialHist:  newPacked(),
		handshake: newPacked(),
		levelCh:   make(chan struct{}),
	}
	r.measureAt.Store(-1)
	r.stopCtx, r.stopCancel = context.WithCancel(ctx)
	defer r.stopCancel()
	r.callCtx, r.cutCalls = context.WithCancelCause(ctx)
	defer r.cutCalls(nil)
	if cfg.Timeout > 0 {
		r.opts = append(r.opts, mcpengine.WithTimeout(cfg.Timeout))
	}
	for i := range cfg.Sessions {
		st := newSlotStats(len(wl.reqs), r.open, cfg.LateAfter)
		st.flows = make([]*flowStats, len(wl.flows))
		r.slots = append(r.slots, &slot{idx: i, name: fmt.Sprintf("load-%d", i), stats: st})
	}

	r.eng = mcpengine.New(cfg.Engine)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), cfg.CloseTimeout)
		defer cancel()
		_ = r.eng.Close(cctx)
	}()

	initial := cfg.Sessions
	if r.staged {
		initial = max(1, r.levelSessions(cfg.StartLevel))
	}
	connectStart := time.Now()
	if err := r.connectInitial(initial); err != nil {
		return nil, err
	}
	connectTotal := time.Since(connectStart)
	if err := r.inspectTools(r.slots[0].sess); err != nil {
		return nil, err
	}
	if err := r.dryRun(); err != nil {
		return nil, err
	}
	if cfg.Ready != nil {
		at, err := cfg.Ready(ctx)
		if err != nil {
			return nil, err
		}
		// time.Until reads the wall clock once; time.Now() carries the
		// monotonic reading the whole run is scheduled on.
		start := time.Now().Add(time.Until(at))
		if !r.waitStart(start) {
			return nil, ctx.Err()
		}
		r.startAt = start
	}
	res := r.run()
	res.Connect.Total = connectTotal
	return res, nil
}

func (r *runner) sessionConfig(sl *slot) mcpengine.SessionConfig {
	sc := r.cfg.Target(sl.idx)
	if sc.Name == "" {
		sc.Name = sl.name
	}
	return sc
}

// connect makes one connection for sl, timing it.
func (r *runner) connect(ctx context.Context, sl *slot) error {
	sc := r.sessionConfig(sl)
	s, ph, err := ConnectTimed(ctx, r.eng, sc, r.cfg.ConnectTimeout)
	var ce *ConnectError
	if r.cfg.Label != "" && errors.As(err, &ce) {
		ce.Target = r.cfg.Label
	}
	r.connMu.Lock()
	defer r.connMu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			r.connectFails++
			r.connectErr = err.Error()
		}
		return err
	}
	r.connects++
	r.countProtocol(s.ProtocolVersion(), s.Era())
	if ph.Dial > 0 {
		_ = r.dialHist.RecordValue(micros(ph.Dial))
	}
	_ = r.handshake.RecordValue(micros(ph.Handshake))
	sl.sess = s
	sl.sup.watch(s)
	sl.conn++
	sl.connects.Add(1)
	r.live.Add(1)
	return nil
}

// countProtocol counts one connect that settled on version (in era).
// The caller holds connMu.
func (r *runner) countProtocol(version, era string) {
	for i := range r.protocols {
		if r.protocols[i].Version == version {
			r.protocols[i].Connects++
			return
		}
	}
	r.protocols = append(r.protocols, ProtocolUse{Version: version, Era: era, Connects: 1})
}

// connectInitial connects the first n sessions concurrently before the
// clock starts; any failure fails the run with the root cause.
func (r *runner) connectInitial(n int) error {
	cctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		// Owner: connectInitial; exits when the connect returns (bounded
		// by ConnectTimeout, or at once after another session failed).
		go func() {
			defer wg.Done()
			if err := r.connect(cctx, r.slots[i]); err != nil {
				errs[i] = err
				cancel() // no point waiting for the others
			}
		}()
	}
	wg.Wait()
	// Report the root cause, not a session aborted because another failed.
	var first, aborted error
	for i, err := range errs {
		if err == nil {
			continue
		}
		err = fmt.Errorf("session %d of %d: %w", i+1, r.cfg.Sessions, err)
		if errors.Is(err, context.Canceled) && r.ctx.Err() == nil {
			aborted = cmp.Or(aborted, err)
		} else {
			first = cmp.Or(first, err)
		}
	}
	return cmp.Or(first, aborted)
}

// inspectTools lists the server's tools once, to check that the tools
// the workload calls exist, compile their outputSchema and build argument
// generators.
func (r *runner) inspectTools(s *mcpengine.Session) error {
	names := r.wl.tools()
	if len(names) == 0 {
		return nil
	}
	needGen, needSchema := false, false
	for _, q := range r.wl.reqs {
		needGen = needGen || q.GenArgs
		needSchema = needSchema || q.needSchema
	}
	if r.cfg.NoOutputCheck && r.cfg.NoPreflight && !needGen && !needSchema {
		return nil
	}
	// A setup step, not a measured call: a per-call timeout set tight for
	// the load (tens of milliseconds) must not cost the checks when the
	// first tools/list of a fresh session is slower.
	lctx, cancel := context.WithTimeout(r.ctx, max(r.cfg.Timeout, 30*time.Second))
	defer cancel()
	tools, err := s.ListTools(lctx)
	if err != nil {
		if needGen {
			return fmt.Errorf("generating arguments needs the tools' inputSchema, but tools/list failed: %w", err)
		}
		if needSchema {
			return fmt.Errorf("a flow step's check.schema needs the tools' outputSchema, but tools/list failed: %w", err)
		}
		r.warn("tools/list failed (%v): the tools called and their results are not checked", err)
		return nil
	}
	byName := make(map[string]messages.Tool, len(tools))
	have := make([]string, 0, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
		have = append(have, t.Name)
	}
	for _, q := range r.wl.reqs {
		if q.Method != messages.MethodToolsCall {
			continue
		}
		t, ok := byName[q.Tool]
		if !ok {
			if q.GenArgs || q.needSchema || !r.cfg.NoPreflight {
				return preflightError(q, missingTool(q.Tool, have))
			}
			r.warn("tool %q is not in the server's tools/list", q.Tool)
			continue
		}
		if !r.cfg.NoOutputCheck || q.needSchema {
			chk, err := newOutputCheck(q.Tool, t.OutputSchema)
			if err != nil {
				r.warn("%v: results are not checked", err)
			}
			q.check = chk
			if q.needSchema && chk == nil && err == nil {
				return preflightError(q, fmt.Sprintf("check.schema: tool %q declares no outputSchema", q.Tool))
			}
		}
		if q.GenArgs {
			g, err := newArgGen(t.InputSchema)
			if err != nil {
				return fmt.Errorf("tool %q: %w", q.Tool, err)
			}
			q.gen = g
			continue
		}
		if !r.cfg.NoPreflight && !q.usesVars {
			if err := r.preflightArguments(q, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// preflightArguments renders a request's arguments once, as its first
// call would, and holds them to the tool's inputSchema: a run whose every
// call the server would refuse measures nothing.
func (r *runner) preflightArguments(q *request, t messages.Tool) error {
	td := TemplateData{SessionName: r.slots[0].name, Row: r.wl.row(0)}
	params, err := q.build(&td)
	if err != nil {
		return nil // the dry run reports it, worded for templates
	}
	problem, err := checkArguments(q.Tool, t.InputSchema, params)
	if err != nil {
		r.warn("tool %s: its inputSchema cannot be checked (%v)", q.Tool, err)
		return nil
	}
	if problem != "" {
		return preflightError(q, problem)
	}
	return nil
}

// dryRun renders every request once so a broken template fails the run
// before it starts rather than as a stream of failed calls. A flow step
// whose templates use values extracted from earlier answers is left to
// the run: the names it uses were checked when the flow compiled.
func (r *runner) dryRun() error {
	td := TemplateData{SessionName: r.slots[0].name, Row: r.wl.row(0)}
	for _, q := range r.wl.reqs {
		if q.usesVars {
			continue
		}
		if _, err := q.build(&td); err != nil {
			var te *TemplateError
			if errors.As(err, &te) {
				te.Request = q.Name
				if q.flow != nil {
					te.Flow, te.Step = q.flow.Name, q.stepLabel
				}
				return te
			}
			return fmt.Errorf("%s: %w", q.label(), err)
		}
	}
	return nil
}

func (r *runner) warn(format string, a ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, a...))
}

// levelSessions rounds a closed-model level to a session count.
func (r *runner) levelSessions(level float64) int {
	return min(len(r.slots), int(math.Round(level)))
}

// since is the time since the run started.
func (r *runner) since(t time.Time) time.Duration { return t.Sub(r.start) }

// profileTime is where the profile stands at now: in the closed model the
// profile starts after the warm-up.
func (r *runner) profileTime(now time.Time) time.Duration {
	if r.open {
		return r.since(now)
	}
	m := r.measureAt.Load()
	if m < 0 {
		return 0
	}
	return r.since(now) - time.Duration(m)
}

func (r *runner) level(now time.Time) float64 {
	if !r.open && len(r.cfg.Stages) == 0 {
		return float64(len(r.slots))
	}
	if !r.open && r.measureAt.Load() < 0 {
		return r.cfg.startLevel()
	}
	return r.prof.level(r.profileTime(now))
}

func (r *runner) stop(why int32) {
	r.stopOnce.Do(func() {
		r.stopWhy.Store(why)
		r.stopAt.Store(int64(time.Since(r.start)))
		r.stopCancel()
	})
}

func (r *runner) stopped() bool { return r.stopCtx.Err() != nil }

// beginMeasure ends the closed model's warm-up and starts its clock.
func (r *runner) beginMeasure() { r.beginMeasureAt(time.Since(r.start)) }

func (r *runner) beginMeasureAt(at time.Duration) {
	r.measureOnce.Do(func() {
		r.measureAt.Store(int64(at))
		if r.prof.end != forever {
			// Owner: the runtime timer; stop only cancels a context.
			t := time.AfterFunc(r.prof.end-(time.Since(r.start)-at), func() { r.stop(stopEnd) })
			context.AfterFunc(r.stopCtx, func() { t.Stop() })
		}
	})
}

// claim takes the next call's ticket: its number, scheduled time (open
// model) and whether it is warm-up. ok is false when the run is over.
func (r *runner) claim() (k int64, at time.Time, warm, ok bool) {
	if r.stopped() {
		return 0, at, false, false
	}
	k = r.tickets.Add(1) - 1
	if r.open {
		off, ok := r.prof.timeOf(k)
		if !ok || off >= r.prof.end {
			r.stop(stopEnd)
			return k, at, false, false
		}
		at = r.start.Add(off)
		if r.cfg.WarmupCount > 0 {
			warm = k < r.cfg.WarmupCount
		} else {
			warm = off < r.warmup
		}
	} else {
		if r.cfg.WarmupCount > 0 && k >= r.cfg.WarmupCount {
			r.beginMeasure()
		}
		warm = r.measureAt.Load() < 0
	}
	if !warm && r.cfg.Count > 0 && r.measured.Add(1) > r.cfg.Count {
		r.stop(stopCount)
		return k, at, false, false
	}
	return k, at, warm, true
}

// isActive reports whether session i may run calls now (the closed
// model's stages turn sessions on and off).
func (r *runner) isActive(i int) bool { return !r.staged || int64(i) < r.active.Load() }

// waitActive waits until session i may run; false if the run stopped.
func (r *runner) waitActive(i int) bool {
	for {
		if r.stopped() {
			return false
		}
		r.levelMu.Lock()
		ch := r.levelCh
		r.levelMu.Unlock()
		if r.isActive(i) {
			return true
		}
		select {
		case <-ch:
		case <-r.stopCtx.Done():
			return false
		}
	}
}

// steer follows the closed model's stages, turning sessions on and off.
func (r *runner) steer() {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		n := int64(r.levelSessions(r.level(time.Now())))
		if r.active.Swap(n) != n {
			r.levelMu.Lock()
			close(r.levelCh)
			r.levelCh = make(chan struct{})
			r.levelMu.Unlock()
		}
		select {
		case <-t.C:
		case <-r.stopCtx.Done():
			return
		}
	}
}

// waitStart waits until start (monotonic); false if ctx ended first.
func (r *runner) waitStart(start time.Time) bool {
	d := time.Until(start)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// errGracefulStop is the cause of the calls cut off GracefulStop after the
// run stopped.
var errGracefulStop = errors.New("loadgen: cut off at the graceful stop")

// graceAfterStop cuts the calls still under way GracefulStop after the run
// stops at its end or an abort; the returned func disarms it. A count
// stays exact: the calls it counts are waited for (each within its
// timeout), and the caller's context cuts the calls by itself.
func (r *runner) graceAfterStop() (disarm func()) {
	if r.cfg.GracefulStop < 0 {
		return func() {}
	}
	var mu sync.Mutex
	var t *time.Timer
	stopWatch := context.AfterFunc(r.stopCtx, func() {
		if why := r.stopWhy.Load(); why != stopEnd && why != stopAbort {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		// Owner: the runtime timer; cutCalls only cancels a context.
		t = time.AfterFunc(r.cfg.GracefulStop, func() { r.cutCalls(errGracefulStop) })
	})
	return func() {
		stopWatch()
		mu.Lock()
		defer mu.Unlock()
		if t != nil {
			t.Stop()
		}
	}
}

// run drives the calls and returns the result.
func (r *runner) run() *Result {
	r.start = r.startAt
	if r.start.IsZero() {
		r.start = time.Now()
	}
	stopWatch := context.AfterFunc(r.ctx, func() { r.stop(stopCtx) })
	defer stopWatch()
	if r.open && r.prof.end != forever {
		// The duration bounds the open model's run: calls still due when
		// it ends, every caller being busy, are dropped, not sent late.
		// Owner: the runtime timer; stop only cancels a context.
		t := time.AfterFunc(time.Until(r.start.Add(r.prof.end)), func() { r.stop(stopEnd) })
		defer t.Stop()
	}
	defer r.graceAfterStop()()
	switch {
	case r.open:
		r.measureAt.Store(int64(r.warmup))
	case r.cfg.WarmupDuration > 0:
		// Owner: the runtime timer; the measurement starts when it fires.
		t := time.AfterFunc(r.cfg.WarmupDuration, r.beginMeasure)
		defer t.Stop()
	case r.cfg.WarmupCount == 0:
		r.beginMeasureAt(0)
	}
	if r.staged {
		r.active.Store(int64(r.levelSessions(r.cfg.startLevel())))
	}

	smp := newSampler(r)
	samplerDone := make(chan struct{})
	finished := make(chan struct{})
	// Owner: run; exits when finished is closed, after every session's
	// goroutine returned.
	go func() {
		defer close(samplerDone)
		smp.loop(finished)
	}()
	var steerWG sync.WaitGroup
	if r.staged {
		steerWG.Add(1)
		// Owner: run; exits when the run stops (stopCtx).
		go func() {
			defer steerWG.Done()
			r.steer()
		}()
	}
	var wg sync.WaitGroup
	for _, sl := range r.slots {
		wg.Add(1)
		// Owner: run; exits when the run stops and the session's calls
		// under way have returned.
		go func() {
			defer wg.Done()
			r.runSlot(sl)
		}()
	}
	wg.Wait()
	// All sessions done: the count was reached, the profile ended, or the
	// caller's context (whose own stop may not have run yet) ended.
	if r.ctx.Err() != nil {
		r.stop(stopCtx)
	}
	r.stop(stopEnd)
	steerWG.Wait()
	close(finished)
	<-samplerDone
	return r.result(smp)
}

// runSlot runs one session index: connect when it becomes active, run
// its callers, and in churn mode close and reconnect after every Churn
// calls.
func (r *runner) runSlot(sl *slot) {
	for {
		if !r.waitActive(sl.idx) {
			return
		}
		if sl.sess == nil && !r.reconnect(sl) {
			return
		}
		var budget *atomic.Int64
		if r.cfg.Churn > 0 {
			budget = new(atomic.Int64)
			budget.Store(r.cfg.Churn)
		}
		var wg sync.WaitGroup
		for w := range r.cfg.Concurrency {
			wg.Add(1)
			// Owner: runSlot; exits when the run stops, the session is
			// turned off by the stages, or its churn budget is spent.
			go func() {
				defer wg.Done()
				r.worker(sl, sl.sess, w, budget)
			}()
		}
		wg.Wait()
		if r.stopped() {
			return
		}
		if budget != nil && budget.Load() <= 0 {
			r.closeSession(sl)
		}
	}
}

// reconnect connects sl during the run, retrying until the run stops; a
// failed connect is counted, not fatal.
func (r *runner) reconnect(sl *slot) bool {
	for {
		if r.connect(r.stopCtx, sl) == nil {
			return true
		}
		select {
		case <-r.stopCtx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (r *runner) closeSession(sl *slot) {
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.CloseTimeout)
	defer cancel()
	sl.sup.release(time.Now())
	_ = sl.sess.Close(ctx)
	sl.sess = nil
	r.live.Add(-1)
}

// worker is one caller: it claims tickets and makes calls until the run
// stops, its session is turned off, or the churn budget is spent.
func (r *runner) worker(sl *slot, s *mcpengine.Session, w int, budget *atomic.Int64) {
	td := TemplateData{Session: sl.idx, SessionName: sl.name, Conn: sl.conn - 1, Worker: w}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if r.stopped() || !r.isActive(sl.idx) {
			return
		}
		if budget != nil && budget.Add(-1) < 0 {
			return
		}
		k, at, warm, ok := r.claim()
		if !ok {
			return
		}
		if r.open && !r.sleepUntil(at, &timer) {
			return
		}
		it := r.wl.pick()
		td.N, td.Row, td.Vars = k, r.wl.row(k), nil
		if it.flow != nil {
			r.runFlow(sl, s, it.flow, &td, warm, at, &timer)
			continue
		}
		r.call(sl, s, it.req, &td, warm, at)
	}
}

// preciseWindow is how close to a call's scheduled time a worker stops
// sleeping on a Go timer and sleeps the rest in the kernel instead: on a
// process with idle processors Go's timers fire up to a millisecond or so
// late (the runtime parks in epoll, whose timeout is in milliseconds),
// which the open model would charge to the server as latency (at 500
// calls/s that left a send lag p50 of 380 µs, most of a 580 µs latency
// p50). The kernel's sleep (preciseSleep) wakes within tens of µs and
// costs no CPU, only a thread parked in the syscall; at most
// maxPreciseSleepers do it at once, the others keep their Go timer (at
// rates where more are due within the window the process is busy and
// timers fire on time anyway).
const preciseWindow = 1500 * time.Microsecond

// maxPreciseSleepers bounds the threads parked in preciseSleep.
const maxPreciseSleepers = 8

// wait sleeps d on the worker's one timer (made at its first wait, reset
// after); false if the caller's context ended first.
func (r *runner) wait(d time.Duration, timer **time.Timer) bool {
	if *timer == nil {
		*timer = time.NewTimer(d)
	} else {
		(*timer).Reset(d)
	}
	select {
	case <-(*timer).C:
		return true
	case <-r.callCtx.Done():
		return false
	}
}

// sleepUntil waits until at; false if the caller's context ended.
func (r *runner) sleepUntil(at time.Time, timer **time.Timer) bool {
	wait := func(d time.Duration) bool { return r.wait(d, timer) }
	if d := time.Until(at) - preciseWindow; d > 0 && !wait(d) {
		return false
	}
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	if r.preciseSleepers.Add(1) > maxPreciseSleepers || !preciseSleep(d) {
		r.preciseSleepers.Add(-1)
		return wait(time.Until(at))
	}
	r.preciseSleepers.Add(-1)
	return r.callCtx.Err() == nil
}

// call makes one call of the mix and records it.
func (r *runner) call(sl *slot, s *mcpengine.Session, q *request, td *TemplateData, warm bool, at time.Time) {
	x, raw, ok := r.send(sl, s, q, td, at)
	if !ok || warm {
		return
	}
	if x.class == OK && q.Method == messages.MethodToolsCall {
		x.class, x.err = checkToolResult(q, raw)
	}
	x.scheduled = true
	sl.stats.record(&x)
}

// send makes one call and times it; the sample is classified by the
// call's error only and not yet recorded. ok is false when the caller's
// context cut the call short (not a measurement). A zero at (a flow's
// later steps, which have no schedule of their own) takes the latency
// from the actual send.
func (r *runner) send(sl *slot, s *mcpengine.Session, q *request, td *TemplateData, at time.Time) (x sample, raw messages.RawMessage, ok bool) {
	x = sample{req: q.index}
	params, err := q.build(td)
	if err != nil {
		x.class, x.err = Other, err
		return x, nil, true
	}
	sl.inflight.Add(1)
	sent := time.Now()
	raw, err = s.Call(r.callCtx, wireMethod(s, q.Method), params, r.opts...)
	done := time.Now()
	sl.inflight.Add(-1)
	if err != nil && r.callCtx.Err() != nil {
		if r.ctx.Err() == nil {
			r.cutOff.Add(1)
		}
		return x, nil, false
	}
	x.class, x.err = Classify(err), err
	x.timed = true
	x.service = done.Sub(sent)
	x.done = r.since(done)
	if r.open {
		if at.IsZero() {
			at = sent
		}
		x.latency = done.Sub(at)
		x.lag = max(0, sent.Sub(at))
	}
	return x, raw, true
}

// wireMethod is the method a request of the mix goes out as on s. A ping
// in 2026-07-28, which has none, is the server/discover round trip that
// Session.Ping and `engine ping` time there, so that a ping load measures
// every server of either era (and still reports as "ping").
func wireMethod(s *mcpengine.Session, method string) string {
	if method == messages.MethodPing && s.Era() == mcpengine.EraModern {
		return messages.MethodServerDiscover
	}
	return method
}
