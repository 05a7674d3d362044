package peers

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Result is one measured phase: calls echo calls made by one client with a
// fixed number of calls in flight.
type Result struct {
	Calls    int
	InFlight int
	Wall     time.Duration
	// CPU is this process's user+system time over the phase (getrusage
	// RUSAGE_SELF): the client alone, since the server is a child process
	// and only this client runs during its phase. It includes the client's
	// share of GC.
	CPU     time.Duration
	Mallocs uint64 // heap allocations (runtime.MemStats.Mallocs delta)
	Bytes   uint64 // bytes allocated (TotalAlloc delta)
	P50     time.Duration
	P99     time.Duration
}

// CallsPerSec is the phase's throughput.
func (r Result) CallsPerSec() float64 { return float64(r.Calls) / r.Wall.Seconds() }

// CPUPerCall is the client's CPU time per call.
func (r Result) CPUPerCall() time.Duration { return r.CPU / time.Duration(r.Calls) }

// AllocsPerCall is the number of heap allocations per call.
func (r Result) AllocsPerCall() float64 { return float64(r.Mallocs) / float64(r.Calls) }

// BytesPerCall is the number of bytes allocated per call.
func (r Result) BytesPerCall() float64 { return float64(r.Bytes) / float64(r.Calls) }

// Phase connects kind to a fresh server, warms it up with warmup calls,
// measures calls calls with inFlight workers, and closes the client (which
// ends the server).
func Phase(ctx context.Context, kind Kind, command string, args []string, calls, inFlight, warmup int) (Result, error) {
	c, err := kind.Dial(ctx, command, args)
	if err != nil {
		return Result{}, fmt.Errorf("%s: connect: %w", kind.Name, err)
	}
	defer c.Close()
	if warmup > 0 {
		if _, err := Drive(ctx, c, warmup, inFlight, nil); err != nil {
			return Result{}, fmt.Errorf("%s: warmup: %w", kind.Name, err)
		}
	}
	lat := make([]time.Duration, calls)
	runtime.GC()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := ProcessCPU()
	wall, err := Drive(ctx, c, calls, inFlight, lat)
	cpu1 := ProcessCPU()
	runtime.ReadMemStats(&ms1)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", kind.Name, err)
	}
	slices.Sort(lat)
	return Result{
		Calls:    calls,
		InFlight: inFlight,
		Wall:     wall,
		CPU:      cpu1 - cpu0,
		Mallocs:  ms1.Mallocs - ms0.Mallocs,
		Bytes:    ms1.TotalAlloc - ms0.TotalAlloc,
		P50:      lat[len(lat)/2],
		P99:      lat[len(lat)*99/100],
	}, nil
}

// Drive makes calls echo calls on c from inFlight goroutines, each taking
// the next call number until all are taken, and returns the wall time. If
// lat is not nil, lat[i] receives call i's latency. The first error stops
// every worker.
func Drive(ctx context.Context, c Client, calls, inFlight int, lat []time.Duration) (time.Duration, error) {
	var next atomic.Int64
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	for range inFlight {
		wg.Add(1)
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
