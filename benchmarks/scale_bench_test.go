package benchmarks_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// The scale benchmarks: many Streamable HTTP sessions of one engine against
// one demo server in a child process (this test binary re-executed), so
// that every heap, goroutine and descriptor figure is the client's alone.
//
//	go test -run '^$' -bench 'Scale' -benchtime=1x .                  # 1k and 10k
//	MCPENGINE_SCALE_100K=1 go test -run '^$' -bench 'ScaleIdle' -benchtime=1x -timeout 30m .
//
// Each process raises its soft RLIMIT_NOFILE to scaleFDLimit when the hard
// limit allows, and never above it: the targets are set under that limit.

// scaleServeArg as os.Args[1] makes the test binary the HTTP demo server.
const scaleServeArg = "-mcpengine-scale-http-server"

// scaleFDLimit is the descriptor limit the targets are stated for.
const scaleFDLimit = 20000

// maybeServeScaleHTTP serves the demo server over Streamable HTTP (HTTP/1.1
// and prior-knowledge h2c on one listener) when the binary was started as
// scaleServeArg; it prints the endpoint's URL on stdout and exits when its
// stdin closes (the benchmark ended or died).
func maybeServeScaleHTTP() {
	if len(os.Args) < 2 || os.Args[1] != scaleServeArg {
		return
	}
	raiseFDLimit(scaleFDLimit)
	// The handshake era, which docs/SCALE.md measures: sessions with their
	// ids and GET streams (the demo server's default also serves
	// 2026-07-28, which has neither).
	srv := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions})
	h := srv.HTTPHandler(demoserver.HTTPOptions{})
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	// One HTTP/2 connection can carry every session's stream: with Go's
	// default of 250 streams per connection, 10,000 calls in flight make
	// the client dial connection after connection, most of them closed
	// again at once because another freed up meanwhile.
	//
	// The header timeout outlasts the client's idle-connection timeout
	// (httpx.DefaultIdleConnTimeout, 30 s). Go's server counts it from
	// accept, and at 10,000 HTTP/1.1 sessions the client's pool holds
	// connections it dialed and did not use at once: with 10 s, those the
	// server dropped failed their first POST with EOF, and those whose
	// deadline passed between the server's 14-byte read for the h2c
	// preface and the rest of the request line drew "400 Bad Request"
	// (bufio's ReadLine hands the 14 bytes over as a whole line and drops
	// the timeout). A raw net/http loop gets both as well.
	hs := &http.Server{Handler: h, Protocols: &protos, ReadHeaderTimeout: 60 * time.Second,
		HTTP2: &http.HTTP2Config{MaxConcurrentStreams: 1 << 20}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale server:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s%s\n", ln.Addr(), demoserver.PathStreamable)
	go func() { // Owner: this process. Exits with it.
		_ = hs.Serve(ln)
	}()
	buf := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			os.Exit(0)
		}
	}
}

// startScaleServer starts the child server and returns its endpoint.
func startScaleServer(b *testing.B) string {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, scaleServeArg)
	return testkit.StartAddressChild(b, cmd)
}

// raiseFDLimit raises the soft descriptor limit to n if the hard limit
// allows (else to the hard limit), and returns the soft limit in force.
func raiseFDLimit(n uint64) uint64 {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	want := min(n, rl.Max)
	if rl.Cur < want {
		rl.Cur = want
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	return rl.Cur
}

// openFDs counts the process's open descriptors.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// timeWait counts the sockets in TIME_WAIT to or from port.
func timeWait(port string) int {
	n := 0
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 4 || fs[3] != "06" {
				continue
			}
			if hexPort(fs[1]) == port || hexPort(fs[2]) == port {
				n++
			}
		}
	}
	return n
}

// hexPort is the decimal port of a /proc/net/tcp address ("0100007F:1F90").
func hexPort(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return ""
	}
	var p uint64
	if _, err := fmt.Sscanf(addr[i+1:], "%X", &p); err != nil {
		return ""
	}
	return fmt.Sprint(p)
}

type scaleFootprint struct {
	heap       uint64
	goroutines int
	fds        int
}

func measureScale() scaleFootprint {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return scaleFootprint{heap: ms.HeapAlloc, goroutines: runtime.NumGoroutine(), fds: openFDs()}
}

// scaleSizes are the session counts measured; 100k only when asked.
func scaleSizes() []int {
	sizes := []int{1000, 10000}
	if os.Getenv("MCPENGINE_SCALE_100K") != "" {
		sizes = append(sizes, 100000)
	}
	return sizes
}

// scaleProtocols are the ways the client talks to the server: HTTP/1.1,
// and prior-knowledge h2c (ServerConfig.HTTP2PriorKnowledge).
var scaleProtocols = []struct {
	name string
	h2c  bool
}{{"h1", false}, {"h2c", true}}

// scaleListenProtocols are the idle benchmark's listening variants: every
// session has a notification handler, so it holds its GET stream open.
var scaleListenProtocols = []struct {
	name string
	h2c  bool
}{{"h2c-listening", true}}

// openScaleSessions opens n sessions in waves of at most wave at once and
// waits until all are ready.
func openScaleSessions(b *testing.B, e *mcpengine.Engine, n int, server mcpengine.ServerConfig) []*mcpengine.Session {
	return openScaleSessionsListening(b, e, n, server, false)
}

// openScaleSessionsListening is openScaleSessions; with listen, each
// session gets a notification handler before it is ready.
func openScaleSessionsListening(b *testing.B, e *mcpengine.Engine, n int, server mcpengine.ServerConfig, listen bool) []*mcpengine.Session {
	b.Helper()
	const wave = 500
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	ss := make([]*mcpengine.Session, 0, n)
	for len(ss) < n {
		k := min(wave, n-len(ss))
		batch := make([]*mcpengine.Session, k)
		for i := range batch {
			s, err := e.Open(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("s-", len(ss)+i), Server: server})
			if err != nil {
				b.Fatal(err)
			}
			if listen {
				s.OnNotification(func(mcpengine.Notification) {})
			}
			batch[i] = s
		}
		for _, s := range batch {
			if err := s.WaitReady(ctx); err != nil {
				b.Fatal(err)
			}
		}
		ss = append(ss, batch...)
	}
	return ss
}

func closeScaleEngine(b *testing.B, e *mcpengine.Engine) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		b.Error(err)
	}
}

// BenchmarkScaleIdleHTTP opens N idle Streamable HTTP sessions (nothing
// listened to; in the -listening variants each has a notification handler
// and so holds its GET stream open) and reports the client's heap, goroutines and open
// descriptors per session (deltas over the engine before the sessions,
// after GC), measured once the connections the opening left in the pool
// passed their idle timeout (httpx.DefaultIdleConnTimeout);
// fds-after-open counts the descriptors before that. ns/op is the time to
// open one session in waves of 500.
func BenchmarkScaleIdleHTTP(b *testing.B) {
	if lim := raiseFDLimit(scaleFDLimit); lim < scaleFDLimit {
		b.Logf("descriptor limit %d (wanted %d)", lim, scaleFDLimit)
	}
	endpoint := startScaleServer(b)
	for _, n := range scaleSizes() {
		for i, p := range append(scaleProtocols, scaleListenProtocols...) {
			listen := i >= len(scaleProtocols)
			b.Run(fmt.Sprintf("sessions=%d/%s", n, p.name), func(b *testing.B) {
				server := mcpengine.ServerConfig{URL: endpoint, HTTP2PriorKnowledge: p.h2c}
				var heap, goroutines, fds, poolFDs float64
				var opening time.Duration
				done := false
				for b.Loop() {
					if done {
						continue
					}
					done = true
					e := mcpengine.New(mcpengine.Config{})
					warm := openScaleSessions(b, e, 1, server)
					_ = warm[0].Close(context.Background())
					time.Sleep(1500 * time.Millisecond) // the workers' idle exit
					before := measureScale()
					t0 := time.Now()
					openScaleSessionsListening(b, e, n, server, listen)
					opening = time.Since(t0)
					time.Sleep(1500 * time.Millisecond) // the workers' idle exit
					poolFDs = float64(openFDs() - before.fds)
					// Idle means idle: the connections the opening storm
					// left in the server's pool close after their idle
					// timeout, so that what remains is the sessions' own.
					time.Sleep(httpx.DefaultIdleConnTimeout + time.Second)
					after := measureScale()
					writeScaleHeapProfile(b, "idle")
					heap = (float64(after.heap) - float64(before.heap)) / float64(n)
					goroutines = float64(after.goroutines-before.goroutines) / float64(n)
					fds = float64(after.fds-before.fds) / float64(n)
					closeScaleEngine(b, e)
				}
				b.ReportMetric(float64(opening)/float64(n), "ns/op")
				b.ReportMetric(heap, "heap-bytes/session")
				b.ReportMetric(goroutines, "goroutines/session")
				b.ReportMetric(fds, "fds/session")
				b.ReportMetric(poolFDs, "fds-after-open")
			})
		}
	}
}

// BenchmarkScaleCallsHTTP opens N Streamable HTTP sessions and keeps one
// echo call in flight on each until b.N calls completed. It reports
// calls/s, the client's CPU per call (the server is another process),
// failed calls, the sockets to the server's port in TIME_WAIT
// once the calls are done (connections churned rather than reused; the
// server is this run's own) and the process's open descriptors; and the
// client's heap per session idle (after opening) and busy (the highest
// live heap while the calls ran), and their ratio.
func BenchmarkScaleCallsHTTP(b *testing.B) {
	if lim := raiseFDLimit(scaleFDLimit); lim < scaleFDLimit {
		b.Logf("descriptor limit %d (wanted %d)", lim, scaleFDLimit)
	}
	for _, n := range scaleSizes() {
		for _, p := range scaleProtocols {
			b.Run(fmt.Sprintf("sessions=%d/%s", n, p.name), func(b *testing.B) {
				if !p.h2c && n > scaleFDLimit {
					b.Skip("over HTTP/1.1 a call in flight needs a connection of its own: more than the descriptor limit")
				}
				// A server of its own, so that the sockets in TIME_WAIT
				// on its port are this run's alone.
				endpoint := startScaleServer(b)
				u, err := url.Parse(endpoint)
				if err != nil {
					b.Fatal(err)
				}
				port := u.Port()
				server := mcpengine.ServerConfig{URL: endpoint, HTTP2PriorKnowledge: p.h2c}
				// Each call's latency, in a slot of its own; allocated
				// before the baseline so that no heap figure carries it.
				took := make([]time.Duration, b.N)
				base := measureScale()
				e := mcpengine.New(mcpengine.Config{})
				defer closeScaleEngine(b, e)
				ss := openScaleSessions(b, e, n, server)
				idle := measureScale()
				peak := newLiveHeapPeak()
				var left atomic.Int64
				var failed atomic.Int64
				var firstErr atomic.Value
				left.Store(int64(b.N))
				ctx := context.Background()
				args := map[string]any{"text": "hello"}
				b.ResetTimer()
				t0, cpu0 := time.Now(), peers.ProcessCPU()
				var wg sync.WaitGroup
				for _, s := range ss {
					wg.Add(1)
					go func() { // Owner: this benchmark. Exits when b.N calls were made.
						defer wg.Done()
						for {
							l := left.Add(-1)
							if l < 0 {
								break
							}
							if l == int64(b.N/2) {
								writeScaleHeapProfile(b, "busy")
							}
							c0 := time.Now()
							if _, err := s.CallTool(ctx, "echo", args); err != nil {
								failed.Add(1)
								firstErr.CompareAndSwap(nil, err.Error())
							}
							took[l] = time.Since(c0)
						}
					}()
				}
				wg.Wait()
				elapsed, cpu := time.Since(t0), peers.ProcessCPU()-cpu0
				b.StopTimer()
				active := peak.stop()
				if e, ok := firstErr.Load().(string); ok {
					b.Logf("first error: %s", e)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
				b.ReportMetric(float64(failed.Load()), "errors")
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(timeWait(port)), "time-wait")
				b.ReportMetric(float64(openFDs()), "fds")
				// The server's pool: connections made, and calls that
				// found the cap's connections all taken (HTTP/1.1).
				for _, st := range e.HTTPStats() {
					b.ReportMetric(float64(st.Dials), "dials")
					b.ReportMetric(float64(st.ConnectionWaits), "conn-waits")
				}
				idlePer := (float64(idle.heap) - float64(base.heap)) / float64(n)
				activePer := (float64(active) - float64(base.heap)) / float64(n)
				b.ReportMetric(idlePer, "idle-heap-bytes/session")
				b.ReportMetric(activePer, "active-heap-bytes/session")
				b.ReportMetric(activePer/idlePer, "active/idle")
			})
		}
	}
}

// liveHeapPeak follows the live heap (as of each garbage collection,
// runtime/metrics' /gc/heap/live:bytes: no collection of its own) while
// calls run, and keeps the highest: what the sessions hold while busy,
// beside measureScale's figure for them idle.
type liveHeapPeak struct {
	done chan struct{}
	max  chan uint64
}

func newLiveHeapPeak() *liveHeapPeak {
	p := &liveHeapPeak{done: make(chan struct{}), max: make(chan uint64, 1)}
	// Owner: the benchmark. Exits when stop closes done.
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var highest uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			highest = max(highest, sample[0].Value.Uint64())
			select {
			case <-p.done:
				p.max <- highest
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// stop ends the sampling and returns the highest live heap seen.
func (p *liveHeapPeak) stop() uint64 {
	close(p.done)
	return <-p.max
}

// writeScaleHeapProfile writes a heap profile of the sessions idle (in
// BenchmarkScaleIdleHTTP) or busy (half way through BenchmarkScaleCallsHTTP)
// to $MCPENGINE_SCALE_HEAPPROFILE.<phase>.<benchmark> when that is set:
//
//	MCPENGINE_SCALE_HEAPPROFILE=/tmp/heap go test -run '^$' -bench 'ScaleIdleHTTP/^sessions=1000$/h1' -benchtime=1x -memprofilerate=512 .
//	go tool pprof -sample_index=inuse_space -top /tmp/heap.idle.*
func writeScaleHeapProfile(b *testing.B, phase string) {
	base := os.Getenv("MCPENGINE_SCALE_HEAPPROFILE")
	if base == "" {
		return
	}
	f, err := os.Create(base + "." + phase + "." + strings.ReplaceAll(b.Name(), "/", "_"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
