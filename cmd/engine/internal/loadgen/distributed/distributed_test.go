package distributed

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed/disttest"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// node is one actor system with its remote on a loopback port: the
// transport the cluster runs on, without the membership (the members'
// addresses are given). One per process: protoactor's remote.Start sets
// gRPC's global logger, which races with another remote's server in the
// same process, so the workers are children (the test binary again).
type node struct {
	sys *actor.ActorSystem
	rem *remote.Remote
}

func quietLogs(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }

func newNode() *node {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(quietLogs))
	rem := remote.NewRemote(sys, remote.Configure("127.0.0.1", 0))
	rem.Start()
	return &node{sys: sys, rem: rem}
}

func TestMain(m *testing.M) {
	switch os.Getenv("DLOAD_TEST_ROLE") {
	case "worker":
		os.Exit(workerMain())
	case "coordinator":
		os.Exit(coordinatorMain())
	}
	// The actor systems live in children: this process starts none, so
	// everything it started must be gone.
	goleak.VerifyTestMain(m)
}

// coordinatorMain is a child: it runs the load the environment gives on
// the members it names and prints the Result as JSON.
func coordinatorMain() int {
	nd := newNode()
	var rate float64
	var count int64
	var sessions, conc int
	fmt.Sscan(os.Getenv("DLOAD_SHAPE"), &rate, &count, &sessions, &conc)
	cfg := &loadgen.Config{Model: loadgen.Open, Rate: rate, Count: count, Sessions: sessions, Concurrency: conc,
		Interval: 100 * time.Millisecond,
		// What the live view would show of a lost member, for the test.
		Progress: func(p loadgen.Progress) {
			for _, l := range p.Lost {
				fmt.Fprintf(os.Stderr, "live: lost %s owed %d\n", l.Address, l.Owed)
			}
		}}
	res, err := Run(context.Background(), Options{System: nd.sys, Members: strings.Split(os.Getenv("DLOAD_MEMBERS"), ","), Config: cfg})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The process exits without stopping its remote: protoactor's
	// shutdown races within itself (endpoint manager) under -race.
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// workerMain is a child: a load worker against its own in-process demo
// server. It prints its address, then serves until stdin closes.
func workerMain() int {
	nd := newNode()
	srv := demoserver.New(demoserver.Options{})
	d := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(context.Background(), c) })
	build := func(args []string) (*loadgen.Config, error) {
		return &loadgen.Config{
			Target:   func(int) mcpengine.SessionConfig { return mcpengine.SessionConfig{Dialer: d} },
			Label:    "demo",
			Model:    loadgen.Open,
			Rate:     1, // replaced by the share
			Interval: 100 * time.Millisecond,
		}, nil
	}
	w, err := StartWorker(nd.sys, build, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(nd.sys.Address())
	_, _ = io.Copy(io.Discard, os.Stdin)
	w.Stop()
	return 0
}

// child is a worker process.
type child struct {
	cmd   *exec.Cmd
	addr  string
	stdin io.Closer
	// progress receives the calls of every "load progress" line it logs.
	progress chan int64
	killed   bool
}

func startWorkers(t *testing.T, n int) []*child {
	t.Helper()
	var out []*child
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DLOAD_TEST_ROLE=worker")
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		c := &child{cmd: cmd, stdin: in, progress: make(chan int64, 1000)}
		var reading sync.WaitGroup
		reading.Add(1)
		t.Cleanup(func() {
			_ = c.stdin.Close()
			reading.Wait()
			err := c.cmd.Wait()
			if !c.killed {
				assert.NoError(t, err, "worker %s exited badly (a race report exits 66)", c.addr)
			}
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		require.NoError(t, err)
		c.addr = strings.TrimSpace(line)
		// Owner: the test (Cleanup waits); exits when the child's stderr
		// closes, as it exits.
		go func() {
			defer reading.Done()
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				if i := strings.Index(sc.Text(), "calls="); i >= 0 && strings.Contains(sc.Text(), "load progress") {
					var n int64
					_, _ = fmt.Sscan(sc.Text()[i+len("calls="):], &n)
					select {
					case c.progress <- n:
					default:
					}
				}
			}
		}()
		out = append(out, c)
	}
	return out
}

// runCoordinator runs a coordinator child on the members and decodes
// its Result.
func runCoordinator(t *testing.T, members []string, rate float64, count int64, sessions, conc int) *loadgen.Result {
	t.Helper()
	res, _ := runCoordinatorLog(t, members, rate, count, sessions, conc)
	return res
}

// runCoordinatorLog is runCoordinator, with what the coordinator logged.
func runCoordinatorLog(t *testing.T, members []string, rate float64, count int64, sessions, conc int) (*loadgen.Result, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DLOAD_TEST_ROLE=coordinator", "DLOAD_MEMBERS="+strings.Join(members, ","),
		fmt.Sprintf("DLOAD_SHAPE=%v %d %d %d", rate, count, sessions, conc))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "coordinator: %s", stderr.String())
	var res loadgen.Result
	require.NoError(t, json.Unmarshal(out, &res))
	return &res, stderr.String()
}

func addrsOf(cs []*child) []string {
	var a []string
	for _, c := range cs {
		a = append(a, c.addr)
	}
	return a
}

func TestDistributedCountsEveryCallOnce(t *testing.T) {
	addrs := addrsOf(startWorkers(t, 3))
	res := runCoordinator(t, addrs, 600, 601, 5, 4)

	assert.False(t, res.Partial)
	assert.EqualValues(t, 601, res.Calls)
	assert.EqualValues(t, 601, res.OK)
	require.Len(t, res.Members, 3)
	var sum, sessions int64
	for i, m := range res.Members {
		assert.Equal(t, addrs[i], m.Address)
		assert.Equal(t, loadgen.MemberFinished, m.Status)
		assert.Equal(t, m.Count, m.Calls, "member %s made its share", m.Address)
		sum += m.Calls
		sessions += int64(m.Sessions)
	}
	assert.EqualValues(t, 601, sum)
	assert.EqualValues(t, 5, sessions)
	disttest.LatencyIsTheMembersMerged(t, res)
	disttest.ConnectIsTheMembersMerged(t, res)
	assert.EqualValues(t, 601, res.Latency.Count)
	assert.Len(t, res.PerSession, 5)
	require.NotNil(t, res.Schedule)
	assert.EqualValues(t, 601, res.Schedule.Intended)
	assert.EqualValues(t, 601, res.Schedule.Sent)
	// The timeline is the members' intervals merged as they came (a
	// member's last sliver of an interval may be left out, as on one host).
	require.NotNil(t, res.Timeline)
	require.NotEmpty(t, res.Timeline.Points)
	var timelineCalls int64
	for _, p := range res.Timeline.Points {
		timelineCalls += p.Calls
		assert.LessOrEqual(t, p.Sessions, 5)
	}
	assert.Positive(t, timelineCalls)
	assert.LessOrEqual(t, timelineCalls, int64(601))
}

func TestDistributedLostMemberKeepsItsCalls(t *testing.T) {
	workers := startWorkers(t, 3)
	addrs := addrsOf(workers)
	victim := workers[1]
	// SIGKILL the victim once it has logged a third of its share.
	killed := make(chan struct{})
	var atKill int64
	go func() {
		defer close(killed)
		deadline := time.After(30 * time.Second)
		for {
			select {
			case n := <-victim.progress:
				if n >= 100 {
					atKill = n
					victim.killed = true
					_ = victim.cmd.Process.Kill()
					return
				}
			case <-deadline:
				return
			}
		}
	}()
	res, log := runCoordinatorLog(t, addrs, 300, 900, 3, 2)
	<-killed
	for _, m := range res.Members {
		t.Logf("member %s: %s %q, %d of %d calls in %.2fs", m.Address, m.Status, m.Error, m.Calls, m.Count, m.Seconds)
	}

	disttest.PartialRun(t, res, victim.addr, atKill, 900)
	assert.Contains(t, res.Warnings[len(res.Warnings)-1], victim.addr)

	// The calls the lost member owed are a number: the rest of its share,
	// never sent, and the live view showed the loss while the run went on.
	var owed int64
	for _, m := range res.Members {
		if m.Address == victim.addr {
			assert.Equal(t, m.Count-m.Calls, m.Owed)
			owed = m.Owed
		}
	}
	assert.Positive(t, owed)
	require.NotNil(t, res.Schedule)
	assert.EqualValues(t, 900, res.Schedule.Intended, "every member's share was due")
	assert.Equal(t, owed, res.Schedule.Unsent, "what the lost member owed was never sent")
	assert.Contains(t, res.Warnings[len(res.Warnings)-1], fmt.Sprintf("%d calls its share owed were never made", owed))
	assert.Contains(t, log, "live: lost "+victim.addr)
}

func TestSplitAddsUp(t *testing.T) {
	sh, err := split(&loadgen.Config{Sessions: 7, Rate: 70, Count: 1001, WarmupCount: 10}, 3)
	require.NoError(t, err)
	var s int
	var r float64
	var n, w int64
	for _, x := range sh {
		s, r, n, w = s+x.sessions, r+x.rate, n+x.count, w+x.warmupCount
	}
	assert.Equal(t, 7, s)
	assert.InDelta(t, 70, r, 1e-9)
	assert.EqualValues(t, 1001, n)
	assert.EqualValues(t, 10, w)
	assert.Equal(t, []int{3, 2, 2}, []int{sh[0].sessions, sh[1].sessions, sh[2].sessions})

	_, err = split(&loadgen.Config{Sessions: 2}, 3)
	assert.ErrorIs(t, err, ErrSplit)
	_, err = split(&loadgen.Config{Sessions: 3, Count: 2}, 3)
	assert.ErrorIs(t, err, ErrSplit)
}
