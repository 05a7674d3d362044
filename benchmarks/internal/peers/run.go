package peers

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Result is what one client measured in one scenario.
type Result struct {
	Calls    int
	Sessions int
	InFlight int // per session
	Wall     time.Duration
	// CPU is this process's user+system time over the calls (getrusage
	// RUSAGE_SELF): the client alone, since the server is a child process
	// and only this client runs during its phase. It includes the client's
	// share of GC.
	CPU     time.Duration
	Mallocs uint64 // heap allocations (runtime.MemStats.Mallocs delta)
	Bytes   uint64 // bytes allocated (TotalAlloc delta)
	P50     time.Duration
	P99     time.Duration

	// Idle rows: live heap (HeapAlloc after a GC) and goroutines added per
	// open session, and the time to open them all.
	HeapPerSession       float64
	GoroutinesPerSession float64
	OpenAll              time.Duration

	// FirstCall rows: New, one session opened and its first call, in a
	// fresh process (firstcall.go).
	FirstCall time.Duration
}

// CallsPerSec is the phase's throughput.
func (r Result) CallsPerSec() float64 { return float64(r.Calls) / r.Wall.Seconds() }

// CPUPerCall is the client's CPU time per call.
func (r Result) CPUPerCall() time.Duration { return r.CPU / time.Duration(r.Calls) }

// AllocsPerCall is the number of heap allocations per call.
func (r Result) AllocsPerCall() float64 { return float64(r.Mallocs) / float64(r.Calls) }

// BytesPerCall is the number of bytes allocated per call.
func (r Result) BytesPerCall() float64 { return float64(r.Bytes) / float64(r.Calls) }

// openers is how many sessions are opened at once: enough to overlap
// round trips, few enough that 2 cores are not swamped by handshakes.
const openers = 8

// Run measures kind in sc against a fresh server: for a calls row, calls
// measured calls after warmup unmeasured ones; for an idle row, the cost
// of its sessions. Every session, the server and the library are closed
// before it returns.
func Run(ctx context.Context, sc Scenario, kind Kind, calls, warmup int) (res Result, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s/%s: %w", sc.Name, kind.Name, err)
		}
	}()
	if sc.FirstCall {
		return runFirstCall(ctx, sc, kind)
	}
	var t Target
	if sc.HTTP {
		srv, err := StartHTTPServer(sc.Version == Modern)
		if err != nil {
			return Result{}, err
		}
		defer srv.Close()
		t = srv.Target(sc.Version)
	} else if t, err = StdioTarget(sc.Version); err != nil {
		return Result{}, err
	}

	heap0, g0 := liveHeap(), runtime.NumGoroutine()
	lib := kind.New(t)
	defer func() { err = errors.Join(err, lib.Close()) }()
	start := time.Now()
	clients, err := OpenSessions(ctx, lib, sc.Sessions)
	openAll := time.Since(start)
	defer func() { err = errors.Join(err, CloseSessions(clients)) }()
	if err != nil {
		return Result{}, err
	}
	if sc.Idle {
		return Result{
			Sessions:             sc.Sessions,
			OpenAll:              openAll,
			HeapPerSession:       float64(liveHeap()-heap0) / float64(sc.Sessions),
			GoroutinesPerSession: float64(runtime.NumGoroutine()-g0) / float64(sc.Sessions),
		}, nil
	}
	return measure(ctx, clients, sc.InFlight, calls, warmup)
}

// liveHeap is HeapAlloc after a full GC. Heap fragments freed by the
// second cycle (finalizers, sync.Pool victims) would otherwise count.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// OpenSessions opens n sessions of lib, openers at a time. On error it
// returns the sessions it opened, for the caller to close.
func OpenSessions(ctx context.Context, lib Library, n int) ([]Client, error) {
	clients := make([]Client, n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(openers, n) {
		wg.Add(1)
		// Owned by OpenSessions: exits when every index is taken.
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				clients[i], errs[i] = lib.Open(ctx)
			}
		}()
	}
	wg.Wait()
	clients = slices.DeleteFunc(clients, func(c Client) bool { return c == nil })
	return clients, errors.Join(errs...)
}

// CloseSessions closes every client, openers at a time.
func CloseSessions(clients []Client) error {
	errs := make([]error, len(clients))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(openers, len(clients)) {
		wg.Add(1)
		// Owned by CloseSessions: exits when every index is taken.
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(clients); i = int(next.Add(1) - 1) {
				errs[i] = clients[i].Close()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// measure warms the sessions up, then makes calls calls with inFlight
// workers per session.
func measure(ctx context.Context, clients []Client, inFlight, calls, warmup int) (Result, error) {
	if warmup > 0 {
		if _, err := Drive(ctx, clients, warmup, inFlight, nil); err != nil {
			return Result{}, fmt.Errorf("warmup: %w", err)
		}
	}
	lat := make([]time.Duration, calls)
	runtime.GC()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := ProcessCPU()
	wall, err := Drive(ctx, clients, calls, inFlight, lat)
	cpu1 := ProcessCPU()
	runtime.ReadMemStats(&ms1)
	if err != nil {
		return Result{}, err
	}
	slices.Sort(lat)
	return Result{
		Calls:    calls,
		Sessions: len(clients),
		InFlight: inFlight,
		Wall:     wall,
		CPU:      cpu1 - cpu0,
		Mallocs:  ms1.Mallocs - ms0.Mallocs,
		Bytes:    ms1.TotalAlloc - ms0.TotalAlloc,
		P50:      lat[len(lat)/2],
		P99:      lat[len(lat)*99/100],
	}, nil
}

// Drive makes calls echo calls from inFlight goroutines per client, each
// taking the next call number until all are taken, and returns the wall
// time. If lat is not nil, lat[i] receives call i's latency. The first
// error stops every worker.
func Drive(ctx context.Context, clients []Client, calls, inFlight int, lat []time.Duration) (time.Duration, error) {
	var next atomic.Int64
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	for w := range inFlight * len(clients) {
		c := clients[w%len(clients)]
		wg.Add(1)
		// Owned by Drive: exits when the calls are all taken or one failed.
		go func() {
			defer wg.Done()
			for firstErr.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= calls {
					return
				}
				t0 := time.Now()
				if err := c.Echo(ctx); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				if lat != nil {
					lat[i] = time.Since(t0)
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if p := firstErr.Load(); p != nil {
		return wall, *p
	}
	return wall, nil
}

// ProcessCPU is this process's user+system CPU time so far.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
