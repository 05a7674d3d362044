//go:build linux

package faultsuite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/proctest"
	"github.com/mcpengine/mcpengine/internal/testkit/engineserve"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
)

// engineServe is the demo server as users run it, with fault flags, in
// the era under test.
func engineServe(args ...string) mcpengine.ServerConfig {
	return engineserve.Config(engineBin, append([]string{"--era", demoEra}, args...)...)
}

// waitGroupGone waits until process group pgid has no live member, for at
// most within, and reports whether it emptied.
func waitGroupGone(t *testing.T, pgid int, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		members, err := proctest.Group(pgid)
		require.NoError(t, err)
		if len(members) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			t.Logf("process group %d still has %v", pgid, members)
			return false
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: there is nothing to wait on
	}
}

// leftReady returns a channel that receives the first change of s away
// from ready.
func leftReady(t *testing.T, s *mcpengine.Session) <-chan mcpengine.StateChange {
	ch := make(chan mcpengine.StateChange, 1)
	stop := s.WatchState(func(c mcpengine.StateChange) {
		if c.From == mcpengine.StateReady {
			select {
			case ch <- c:
			default:
			}
		}
	})
	t.Cleanup(stop)
	return ch
}

// A server started by a wrapper that leaves a child behind holding its
// stdout (`sleep 60 & exec engine serve`, as npx, uvx and launch scripts
// do) is killed with SIGKILL: every call in flight fails with
// ErrConnectionLost at once (not by its timeout), an idle session leaves
// ready by itself, the child dies with the server's process group, and
// both sessions come back.
func TestDiesWithChildrenAlive(t *testing.T) {
	f := newFault(t, "stdio", "in-flight calls: ErrConnectionLost; idle session leaves ready; group killed; ready again", mcpengine.Config{})
	dir := t.TempDir()
	script := filepath.Join(dir, "wrapper.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsleep 60 &\necho \"$$\" >> \"$PIDS_FILE\"\nexec \"$ENGINE\" serve\n"), 0o755))
	server := func(name string) (mcpengine.ServerConfig, string) {
		pids := filepath.Join(dir, name+".pids")
		return mcpengine.ServerConfig{Command: script, Env: map[string]string{"PIDS_FILE": pids, "ENGINE": engineBin}}, pids
	}
	lastPID := func(file string) int {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		lines := strings.Fields(string(b))
		pid, err := strconv.Atoi(lines[len(lines)-1])
		require.NoError(t, err)
		return pid
	}
	busyServer, busyPids := server("busy")
	idleServer, idlePids := server("idle")
	busy := f.connect("busy", busyServer)
	idle := f.connect("idle", idleServer)
	idleLeft := leftReady(t, idle)
	busyLeft := leftReady(t, busy)

	n := scale(50, 1000)
	var wg sync.WaitGroup
	var killed time.Time
	var killedMu sync.Mutex
	sent := busy.Stats().Requests
	for i := range n {
		wg.Add(1)
		// Owner: this test; exits when the call returns.
		go func() {
			defer wg.Done()
			_, err := busy.CallTool(f.ctx(2*requestTimeout), "sleep", map[string]any{"ms": 600000})
			killedMu.Lock()
			took := time.Since(killed)
			killedMu.Unlock()
			f.tookErr(took)
			assert.ErrorIs(t, err, mcpengine.ErrConnectionLost, "call %d", i)
			assert.NotErrorIs(t, err, mcpengine.ErrTimeout, "call %d", i)
			assert.Less(t, took, slack, "call %d noticed the death late", i)
		}()
	}
	// Every call is on the wire and read: a ping after them is answered
	// only once the server has read what came before it.
	waitRequests(t, busy, sent+uint64(n))
	require.NoError(t, busy.Ping(f.ctx(requestTimeout)))

	busyPID, idlePID := lastPID(busyPids), lastPID(idlePids)
	killedMu.Lock()
	killed = time.Now()
	killedMu.Unlock()
	require.NoError(t, syscall.Kill(busyPID, syscall.SIGKILL))
	require.NoError(t, syscall.Kill(idlePID, syscall.SIGKILL))
	wg.Wait()

	for _, ch := range []<-chan mcpengine.StateChange{busyLeft, idleLeft} {
		select {
		case c := <-ch:
			assert.Error(t, c.Err, "why it left ready")
		case <-time.After(slack):
			t.Fatalf("a session still says ready %v after its server was killed", slack)
		}
	}
	// The children the wrappers left died with their servers' groups.
	assert.True(t, waitGroupGone(t, busyPID, slack), "the busy server's orphan outlived it")
	assert.True(t, waitGroupGone(t, idlePID, slack), "the idle server's orphan outlived it")

	waitState(t, busy, mcpengine.StateReady, slack)
	waitState(t, idle, mcpengine.StateReady, slack)
	require.NoError(t, busy.Ping(f.ctx(requestTimeout)))
	require.NoError(t, idle.Ping(f.ctx(requestTimeout)))
	assert.Equal(t, uint64(1), busy.Stats().Restarts)
	assert.Equal(t, uint64(1), idle.Stats().Restarts)
	f.notePIDs()
}

// A server that exits right after each handshake: the restarts slow
// down (the backoff is not reset by a handshake that did not last), every
// call returns by its deadline with ErrConnectionLost or ErrTimeout.
func TestCrashLoop(t *testing.T) {
	// Without jitter the policy's delays are 20, 40, 80, 160, 320, then
	// 500 ms: over window no more than maxRestarts restarts can happen,
	// however fast the machine (a slower one restarts less).
	window := time.Duration(scale(3, 10)) * time.Second
	policy := supervisor.Policy{Initial: 20 * time.Millisecond, Max: 500 * time.Millisecond, Jitter: -1}
	// 5 delays below Max (620 ms in all), then one restart per Max, and
	// a few more: a restart is counted when its failure happens, and the
	// last call may end after the window.
	maxRestarts := 5 + int((window-620*time.Millisecond)/policy.Max) + 3
	f := newFault(t, "stdio", "restarts slowed by the backoff; calls: ErrConnectionLost or ErrTimeout by their deadline", mcpengine.Config{Backoff: policy})
	s := f.open("crash", scripted(modeCrashAfterInit, nil))
	end := time.Now().Add(window)
	for time.Now().Before(end) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		r, took := timedCall(s, ctx, "echo", map[string]any{"text": "x"})
		cancel()
		f.tookErr(took)
		if !assert.Error(t, r.err, "the server never answers a call") {
			continue
		}
		if !errorsIsAny(r.err, mcpengine.ErrConnectionLost, mcpengine.ErrTimeout) {
			t.Errorf("want ErrConnectionLost or ErrTimeout, got %v", r.err)
		}
		assert.Less(t, took, 200*time.Millisecond+slack, "a call waited past its deadline")
		f.notePIDs()
	}
	restarts := s.Stats().Restarts
	assert.Positive(t, restarts, "the server died and was restarted")
	assert.LessOrEqual(t, restarts, uint64(maxRestarts), "restarts over %v: the backoff was reset by handshakes", window)
	assert.NotEqual(t, mcpengine.StateClosed, s.State(), "a crash loop is retried without limit")
}

func errorsIsAny(err error, targets ...error) bool {
	for _, target := range targets {
		if errorIs(err, target) {
			return true
		}
	}
	return false
}

// Garbage between the answers (a line that is not JSON, one that is not
// UTF-8): counted and dropped; every caller gets its own answer; no
// restart.
func TestBrokenFrames(t *testing.T) {
	f := newFault(t, "stdio", "garbage dropped and counted; every caller its own answer; no restart", mcpengine.Config{})
	s := f.connect("garbage", engineServe("--garbage-every", "1"))
	assert.Zero(t, echoAll(f, s, "g", scale(16, 64), scale(8, 32), nil))
	assert.GreaterOrEqual(t, s.Stats().InvalidFrames+s.Stats().InvalidUTF8Frames, uint64(16*8/2))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// Answers whose id matches a pending call but that break JSON-RPC
// (result and error both, "jsonrpc":"1.0", the id sent back as a
// string): that call fails at once with a *ProtocolError, the others get
// their own answers, and the session goes on.
func TestBrokenAnswer(t *testing.T) {
	f := newFault(t, "stdio", "*ProtocolError at once (result+error, jsonrpc 1.0, string id); others unharmed; no restart", mcpengine.Config{})
	s := f.connect("broken", scripted(modeTools, nil))
	brokenAnswers(t, f, s)
	assert.Equal(t, uint64(12), s.Stats().InvalidFrames)
}

// An answer above Config.MaxFrameBytes: the stdio connection cannot
// resynchronise, so it fails at once with ErrConnectionLost carrying a
// *transport.FrameTooLargeError, and the session comes back.
func TestOversizedFrame(t *testing.T) {
	const limit = 256 << 10
	f := newFault(t, "stdio", "ErrConnectionLost (FrameTooLargeError) at once, to the calls in flight too; ready again", mcpengine.Config{MaxFrameBytes: limit})
	s := f.connect("oversized", engineServe())
	// Calls in flight on the same connection fail with it.
	n := scale(10, 100)
	var wg sync.WaitGroup
	sent := s.Stats().Requests
	for i := range n {
		wg.Add(1)
		// Owner: this test; exits when the call returns (with the connection).
		go func() {
			defer wg.Done()
			r, took := timedCall(s, f.ctx(2*requestTimeout), "sleep", map[string]any{"ms": 600000})
			f.tookErr(took)
			assert.ErrorIs(t, r.err, mcpengine.ErrConnectionLost, "call %d", i)
		}()
	}
	waitRequests(t, s, sent+uint64(n))
	r, took := timedCall(s, f.ctx(2*requestTimeout), "large", map[string]any{"bytes": 4 * limit})
	f.tookErr(took)
	require.ErrorIs(t, r.err, mcpengine.ErrConnectionLost)
	var tooLarge *transport.FrameTooLargeError
	assert.ErrorAs(t, r.err, &tooLarge)
	assert.Less(t, took, slack)
	wg.Wait()
	waitState(t, s, mcpengine.StateReady, slack)
	f.notePIDs()
	assert.Zero(t, echoAll(f, s, "o", 4, 4, nil))
	assert.Equal(t, uint64(1), s.Stats().Restarts)
}

// A tool call the server never answers: callers with a ctx deadline get
// a *TimeoutError (also context.DeadlineExceeded) by their deadline, and
// the session stays ready.
func TestNeverAnswers(t *testing.T) {
	f := newFault(t, "stdio", "*TimeoutError = DeadlineExceeded at the caller's deadline (300ms); still ready", mcpengine.Config{})
	s := f.connect("never", scripted(modeTools, nil))
	deadlineCalls(f, s, scale(50, 500), 300*time.Millisecond, "hang", func(int) map[string]any { return nil })
	assert.Zero(t, echoAll(f, s, "n", 4, 4, nil))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// A server that stops reading its stdin while the client writes: the pipe
// fills, yet every caller returns at its own deadline, and Close is not
// held up by the server.
func TestStopsReading(t *testing.T) {
	f := newFault(t, "stdio", "*TimeoutError at the caller's deadline (500ms) although the pipe is full", mcpengine.Config{})
	s := f.connect("deaf", scripted(modeStopReading, nil))
	text := strings.Repeat("x", 4000) // 100 of these: 400 KB, far over a pipe's 64 KiB
	deadlineCalls(f, s, scale(100, 400), 500*time.Millisecond, "echo", func(int) map[string]any { return map[string]any{"text": text} })
	ctx, cancel := context.WithTimeout(context.Background(), slack)
	defer cancel()
	assert.NoError(t, s.Close(ctx), "Close of a session whose server stopped reading")
}

// A server that writes a megabyte of noise to stderr for every request:
// stderr is drained, calls succeed, nothing restarts.
func TestFloodsStderr(t *testing.T) {
	f := newFault(t, "stdio", "calls succeed under 1 MiB of stderr per request; no restart", mcpengine.Config{})
	s := f.connect("noisy", engineServe("--stderr-spam", "1048576"))
	assert.Zero(t, echoAll(f, s, "s", 4, scale(8, 25), nil))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// A server that answers a protocol version the engine cannot speak: the
// session retries within its restart budget, then closes for good with
// ErrVersionMismatch; a call waiting for it fails with ErrSessionClosed.
func TestWrongProtocolVersion(t *testing.T) {
	f := newFault(t, "stdio", "ErrVersionMismatch within the restart budget, then closed; waiting call: ErrSessionClosed", mcpengine.Config{RestartBudget: 2})
	start := time.Now()
	s := f.open("old", engineServe("--answer-version", "1999-01-01"))
	var wg sync.WaitGroup
	wg.Add(1)
	// Owner: this test; exits when the call returns (when the session
	// closes for good).
	go func() {
		defer wg.Done()
		r, took := timedCall(s, f.ctx(2*requestTimeout), "echo", map[string]any{"text": "x"})
		f.tookErr(took)
		assert.ErrorIs(t, r.err, mcpengine.ErrSessionClosed)
		assert.Less(t, took, slack)
	}()
	err := s.WaitReady(f.ctx(2 * requestTimeout))
	f.tookErr(time.Since(start))
	assert.ErrorIs(t, err, mcpengine.ErrVersionMismatch)
	assert.ErrorIs(t, err, mcpengine.ErrSessionClosed)
	var vm *mcpengine.VersionMismatchError
	assert.ErrorAs(t, err, &vm)
	assert.Less(t, time.Since(start), slack, "closed within the budget, not by the ctx")
	wg.Wait()
	assert.Equal(t, mcpengine.StateClosed, s.State())
}

// A server that writes its answer a byte at a time, slowly: a caller
// whose deadline passes mid-frame returns by it (the reader busy with
// the half-read frame does not hold it), the caller that waits long
// enough gets its own answer, and the late answer harms nothing.
func TestSlowTrickle(t *testing.T) {
	f := newFault(t, "stdio", "answer arrives a byte per 5ms: short deadline *TimeoutError on time, long one its answer", mcpengine.Config{})
	s := f.connect("trickle", scripted(modeTools, nil))
	text := strings.Repeat("t", 60) // ~140 bytes of frame: ~0.7 s or more
	deadlineCalls(f, s, 1, 200*time.Millisecond, "trickle", func(int) map[string]any { return map[string]any{"text": text, "gap_ms": 5} })
	r, _ := timedCall(s, f.ctx(2*requestTimeout), "trickle", map[string]any{"text": text + "-mine", "gap_ms": 5})
	require.NoError(t, r.err)
	assert.Equal(t, text+"-mine", r.text)
	assert.Zero(t, echoAll(f, s, "t", 4, 2, nil))
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Zero(t, s.Stats().Restarts)
}

// A server that closes its stdout but stays alive (--close-after): the
// call that finds it closed fails at once with ErrConnectionLost, the
// engine shuts the live process down, and the session comes back.
func TestClosesStdout(t *testing.T) {
	f := newFault(t, "stdio", "stdout closed, process alive: ErrConnectionLost at once; process shut down; ready again", mcpengine.Config{})
	// Requests 1 to 3 are the era probe (server/discover, which the
	// legacy demo server refuses), initialize and this test's first call;
	// the fourth request finds the connection closed.
	s := f.connect("mute", engineServe("--close-after", "3"))
	pids, err := proctest.Children(engineBin, "serve")
	require.NoError(t, err)
	require.Len(t, pids, 1)
	ctx := f.ctx(2 * requestTimeout)
	r, _ := timedCall(s, ctx, "echo", map[string]any{"text": "1"})
	require.NoError(t, r.err)
	r, took := timedCall(s, ctx, "echo", map[string]any{"text": "2"})
	f.tookErr(took)
	assert.ErrorIs(t, r.err, mcpengine.ErrConnectionLost)
	assert.Less(t, took, slack)
	start := time.Now()
	assert.True(t, waitGroupGone(t, pids[0], slack), "the server that closed its stdout was shut down")
	t.Logf("the server that closed its stdout was gone %v after the call failed", time.Since(start)+took)
	waitState(t, s, mcpengine.StateReady, slack)
	f.notePIDs()
	r, _ = timedCall(s, ctx, "echo", map[string]any{"text": "3"}) // the new server's one call
	require.NoError(t, r.err)
	assert.Equal(t, "3", r.text)
	assert.Equal(t, uint64(1), s.Stats().Restarts)
}

// Close of a session whose calls the server never answers: every call in
// flight fails at once with ErrSessionClosed, and Close returns well
// before the calls' deadlines.
func TestCloseWithCallsInFlight(t *testing.T) {
	f := newFault(t, "stdio", "Close with unanswered calls: ErrSessionClosed at once; Close prompt", mcpengine.Config{})
	s := f.connect("closing", scripted(modeTools, nil))
	n := scale(20, 200)
	var wg sync.WaitGroup
	var closedAt time.Time
	var mu sync.Mutex
	sent := s.Stats().Requests
	for i := range n {
		wg.Add(1)
		// Owner: this test; exits when the call returns (at Close).
		go func() {
			defer wg.Done()
			_, err := s.CallTool(f.ctx(2*requestTimeout), "hang", nil)
			mu.Lock()
			took := time.Since(closedAt)
			mu.Unlock()
			f.tookErr(took)
			assert.ErrorIs(t, err, mcpengine.ErrSessionClosed, "call %d", i)
			assert.Less(t, took, slack, "call %d", i)
		}()
	}
	waitRequests(t, s, sent+uint64(n))
	require.NoError(t, s.Ping(f.ctx(requestTimeout)), "the server read them all")
	ctx, cancel := context.WithTimeout(context.Background(), slack)
	defer cancel()
	mu.Lock()
	closedAt = time.Now()
	mu.Unlock()
	assert.NoError(t, s.Close(ctx))
	wg.Wait()
	assert.Equal(t, mcpengine.StateClosed, s.State())
}

// The server is killed again and again while callers keep calling with
// their own arguments: each call gets its own answer or ErrConnectionLost,
// never another's answer, and the session ends ready every time.
func TestRepeatedKills(t *testing.T) {
	slowFault(t)
	f := newFault(t, "stdio", "kill -9 x10 under load: own answer or ErrConnectionLost; ready after each", mcpengine.Config{})
	s := f.connect("killed", engineServe())
	const kills = 10
	stop := make(chan struct{})
	stopCalling := sync.OnceFunc(func() { close(stop) })
	var calling sync.WaitGroup
	var failed int
	calling.Add(1)
	// Owner: this test; exits when stop is closed (by the end of the
	// test at the latest: the cleanup below waits for it).
	go func() {
		defer calling.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			failed += echoAll(f, s, "k", 8, 4, func(err error) bool { return errors.Is(err, mcpengine.ErrConnectionLost) })
		}
	}()
	t.Cleanup(func() { stopCalling(); calling.Wait() }) // before the engine closes
	for range kills {
		waitState(t, s, mcpengine.StateReady, slack)
		pids, err := proctest.Children(engineBin, "serve")
		require.NoError(t, err)
		require.Len(t, pids, 1)
		f.notePIDs()
		left := make(chan struct{})
		var once sync.Once
		unwatch := s.WatchState(func(c mcpengine.StateChange) {
			if c.From == mcpengine.StateReady {
				once.Do(func() { close(left) })
			}
		})
		require.NoError(t, syscall.Kill(pids[0], syscall.SIGKILL))
		select {
		case <-left:
		case <-time.After(slack):
			t.Fatal("the session still says ready after its server was killed")
		}
		unwatch()
	}
	waitState(t, s, mcpengine.StateReady, slack)
	stopCalling()
	calling.Wait()
	t.Logf("%d calls failed over %d kills", failed, kills)
	assert.Equal(t, uint64(kills), s.Stats().Restarts)
}

// A server that never answers initialize: Connect returns by its ctx
// deadline, a call made meanwhile by its own, and the handshake times out
// (Config.InitTimeout) into a restart.
func TestNeverAnswersInitialize(t *testing.T) {
	f := newFault(t, "stdio", "Connect and calls end at their deadlines (DeadlineExceeded); InitTimeout restarts the server", mcpengine.Config{InitTimeout: 500 * time.Millisecond})
	const d = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	_, err := f.eng.Connect(ctx, mcpengine.SessionConfig{Name: "mute-connect", Server: scripted(modeSilent, nil)})
	took := time.Since(start)
	f.tookErr(took)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, took, d+slack, "Connect waited past its deadline")

	s := f.open("mute", scripted(modeSilent, nil))
	restarted := make(chan struct{})
	var once sync.Once
	unwatch := s.WatchState(func(c mcpengine.StateChange) {
		if c.From == mcpengine.StateInitializing {
			once.Do(func() { close(restarted) })
		}
	})
	defer unwatch()
	deadlineCalls(f, s, scale(10, 100), d, "echo", func(int) map[string]any { return map[string]any{"text": "x"} })
	select {
	case <-restarted:
	case <-time.After(slack):
		t.Fatalf("still %v %v after the 500ms InitTimeout", s.State(), slack)
	}
	f.notePIDs()
}

// Connect with a deadline to a server that never answers initialize and
// ignores both the end of its stdin and SIGTERM (a process stuck in its
// start-up): Connect must return by its deadline, not after the shutdown
// sequence of the session it gives up on (stdin closed, 2 s, SIGTERM,
// 2 s, SIGKILL).
//
// Fails on this base: Connect closes the session it gave up on with a
// fresh 5 s context (engine.go), so it returns about 4 s past the
// caller's deadline.
func TestConnectDeadlineStuckServer(t *testing.T) {
	f := newFault(t, "stdio", "Connect returns by its deadline (300ms) with DeadlineExceeded", mcpengine.Config{})
	const d = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	_, err := f.eng.Connect(ctx, mcpengine.SessionConfig{Name: "stuck", Server: mcpengine.ServerConfig{
		Command: "/bin/sh", Args: []string{"-c", "trap '' TERM; exec sleep 60"},
	}})
	took := time.Since(start)
	f.tookErr(took)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	// The shutdown it must not wait for takes 4 s; 2 s past the deadline
	// tells the two apart on a loaded machine.
	assert.Less(t, took, d+2*time.Second, "Connect returned %v after its start, past its %v deadline", took, d)
}

// A server that dies in the middle of writing an answer (half a frame,
// no newline): every call in flight fails at once with ErrConnectionLost,
// and the session comes back.
func TestDiesMidFrame(t *testing.T) {
	f := newFault(t, "stdio", "half a frame, then exit: ErrConnectionLost at once to every call in flight; ready again", mcpengine.Config{})
	s := f.connect("half", scripted(modeTools, nil))
	n := scale(20, 200)
	var wg sync.WaitGroup
	sent := s.Stats().Requests
	for i := range n {
		wg.Add(1)
		// Owner: this test; exits when the call returns (when the server dies).
		go func() {
			defer wg.Done()
			r, took := timedCall(s, f.ctx(2*requestTimeout), "hang", nil)
			f.tookErr(took)
			assert.ErrorIs(t, r.err, mcpengine.ErrConnectionLost, "call %d", i)
			assert.Less(t, took, slack, "call %d", i)
		}()
	}
	waitRequests(t, s, sent+uint64(n))
	r, took := timedCall(s, f.ctx(2*requestTimeout), "half", nil)
	f.tookErr(took)
	assert.ErrorIs(t, r.err, mcpengine.ErrConnectionLost)
	assert.Less(t, took, slack)
	wg.Wait()
	waitState(t, s, mcpengine.StateReady, slack)
	f.notePIDs()
	assert.Zero(t, echoAll(f, s, "h", 4, 2, nil))
	assert.Equal(t, uint64(1), s.Stats().Restarts)
}

// Session.Close and Engine.Close with a short deadline, while the server
// neither reads its stdin nor minds SIGTERM: each returns by its
// deadline, and the server is still killed and reaped (the leak check).
func TestCloseDeadlineStubbornServer(t *testing.T) {
	f := newFault(t, "stdio", "Session.Close and Engine.Close return by their deadline (300ms); server killed anyway", mcpengine.Config{})
	a := f.connect("a", scripted(modeStubborn, nil))
	f.connect("b", scripted(modeStubborn, nil))
	const d = 300 * time.Millisecond
	for _, c := range []struct {
		what  string
		close func(context.Context) error
	}{{"Session.Close", a.Close}, {"Engine.Close", f.eng.Close}} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		start := time.Now()
		err := c.close(ctx)
		took := time.Since(start)
		cancel()
		f.tookErr(took)
		t.Logf("%s: %v after %v", c.what, err, took)
		assert.Less(t, took, d+2*time.Second, "%s waited for the server's shutdown past its deadline", c.what)
	}
}
