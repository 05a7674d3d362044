package distributed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed/loadpb"
)

// WorkerName is the name of the load worker actor on every member: the
// coordinator addresses it as WorkerName at the member's address.
const WorkerName = "mcpengine-loadworker"

// Kind is the cluster kind a member that runs a load worker advertises,
// so that the coordinator picks the members that take load.
const Kind = "mcpengine-loadworker"

// BuildFunc turns the engine load flags of a run into its configuration,
// exactly as engine load does on one host (the command line supplies it).
type BuildFunc func(args []string) (*loadgen.Config, error)

// Worker is a member's load worker: it runs one share of a load test at a
// time for whichever coordinator asks.
type Worker struct {
	system *actor.ActorSystem
	pid    *actor.PID
	build  BuildFunc
	log    *slog.Logger
	// runs tracks the goroutines running a share; Stop waits for them.
	runs sync.WaitGroup
	// ctx ends every run when the worker stops.
	ctx    context.Context
	cancel context.CancelFunc
}

// StartWorker spawns the load worker on system (whose remote must be
// started for coordinators to reach it). log may be nil.
func StartWorker(system *actor.ActorSystem, build BuildFunc, log *slog.Logger) (*Worker, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Worker{system: system, build: build, log: log}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	pid, err := system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &workerActor{w: w} }), WorkerName)
	if err != nil {
		w.cancel()
		return nil, fmt.Errorf("distributed: spawning the load worker: %w", err)
	}
	w.pid = pid
	return w, nil
}

// Stop ends any run under way (its coordinator gets no Done and counts
// the member lost), stops the actor and waits for the run's goroutine.
func (w *Worker) Stop() {
	w.cancel()
	_ = w.system.Root.StopFuture(w.pid).Wait()
	w.runs.Wait()
}

// workerActor owns the worker's one run at a time. Messages:
//   - *loadpb.Prepare (coordinator): start a run, or refuse with Done.
//   - *loadpb.Go (coordinator): the run's start instant.
//   - *loadpb.ProgressAck (coordinator): a report recorded; logged.
//   - *loadpb.Stop (coordinator): end the run early.
//   - *actor.Terminated (protoactor): the coordinator went away; end the run.
//   - *runEnded (the run's goroutine): the run sent its Done.
type workerActor struct {
	w   *Worker
	cur *workerRun
}

// workerRun is one run on this member.
type workerRun struct {
	id     string
	member string
	coord  *actor.PID
	cancel context.CancelFunc
	// start receives the Go instant (buffered: the actor never blocks).
	start chan time.Time
}

// runEnded is sent by a run's goroutine to the worker actor after Done.
type runEnded struct{ id string }

func (a *workerActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *loadpb.Prepare:
		a.prepare(c, m)
	case *loadpb.Go:
		if a.cur != nil && a.cur.id == m.RunId {
			select {
			case a.cur.start <- time.Unix(0, m.StartUnixNano):
			default:
			}
		}
	case *loadpb.ProgressAck:
		if a.cur != nil && a.cur.id == m.RunId {
			// Logged on the coordinator's word: these calls are counted
			// even if this member dies next.
			a.w.log.Info("load progress", "run", m.RunId, "seq", m.Seq, "calls", m.Calls)
		}
	case *loadpb.Stop:
		if a.cur != nil && a.cur.id == m.RunId {
			a.w.log.Info("load run stopped by its coordinator", "run", m.RunId, "reason", m.Reason)
			a.cur.cancel()
		}
	case *actor.Terminated:
		if a.cur != nil && a.cur.coord.Equal(m.Who) {
			a.w.log.Warn("load coordinator went away: stopping its run", "run", a.cur.id, "coordinator", m.Who.String())
			a.cur.cancel()
		}
	case *runEnded:
		if a.cur != nil && a.cur.id == m.id {
			c.Unwatch(a.cur.coord)
			a.cur = nil
		}
	case *actor.Stopping:
		if a.cur != nil {
			a.cur.cancel()
		}
	}
}

func (a *workerActor) prepare(c actor.Context, m *loadpb.Prepare) {
	coord := actor.NewPID(m.CoordinatorAddress, m.CoordinatorId)
	if a.cur != nil {
		c.Send(coord, &loadpb.Done{RunId: m.RunId, Member: m.Member,
			Error: fmt.Sprintf("busy with run %s", a.cur.id)})
		return
	}
	ctx, cancel := context.WithCancel(a.w.ctx)
	run := &workerRun{id: m.RunId, member: m.Member, coord: coord, cancel: cancel, start: make(chan time.Time, 1)}
	a.cur = run
	// A coordinator that dies must not leave its load running here.
	c.Watch(coord)
	sh := share{sessions: int(m.Sessions), rate: m.Rate, count: m.Count, warmupCount: m.WarmupCount, levelScale: m.LevelScale}
	a.w.log.Info("load run prepared", "run", m.RunId, "coordinator", m.CoordinatorAddress, "sessions", sh.sessions, "rate", sh.rate, "count", sh.count)
	a.w.runs.Add(1)
	self := c.Self()
	// Owner: the Worker (Stop waits on runs); exits when the run ends:
	// its share done, Stop, its coordinator gone, or the worker stopped.
	go func() {
		defer a.w.runs.Done()
		defer cancel()
		done := a.w.run(ctx, run, m.Args, sh)
		a.w.system.Root.Send(coord, done)
		a.w.system.Root.Send(self, &runEnded{id: run.id})
	}()
}

// run builds and runs the member's share and returns its Done.
func (w *Worker) run(ctx context.Context, run *workerRun, args []string, sh share) *loadpb.Done {
	done := &loadpb.Done{RunId: run.id, Member: run.member}
	cfg, err := w.build(args)
	if err != nil {
		done.Error = err.Error()
		return done
	}
	sh.apply(cfg)
	cfg.MethodHistograms = true
	cfg.Ready = func(ctx context.Context) (time.Time, error) {
		w.system.Root.Send(run.coord, &loadpb.Ready{RunId: run.id, Member: run.member})
		select {
		case at := <-run.start:
			return at, nil
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
	var seq int64
	cfg.Progress = func(p loadgen.Progress) {
		seq++
		w.system.Root.Send(run.coord, progressMsg(run.id, run.member, seq, p))
	}
	res, err := loadgen.Run(ctx, *cfg)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			err = errors.New("stopped before the run started")
		}
		done.Error = err.Error()
		return done
	}
	// The coordinator builds the run's timeline from the Progress reports;
	// this one would only make Done larger (up to 1200 points).
	res.Timeline = nil
	b, err := resultJSON(res)
	if err != nil {
		done.Error = fmt.Sprintf("encoding the result: %v", err)
		return done
	}
	done.ResultJson = b
	w.log.Info("load run done", "run", run.id, "calls", res.Calls, "failed", res.Failed)
	return done
}
