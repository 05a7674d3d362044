//go:build linux

package faultsuite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

// The descriptor faults run in a child process (this test binary
// re-executed with fdChildEnv naming the scenario) whose RLIMIT_NOFILE is
// lowered, against demo servers in the parent, whose descriptors do not
// count against the child's limit.
const (
	fdChildEnv  = "FAULTSUITE_FD_CHILD"
	fdURLEnv    = "FAULTSUITE_FD_URL"    // keep-alive demo server
	fdCloseEnv  = "FAULTSUITE_FD_CLOSE"  // a demo server that closes every connection after its answer
	fdLimitEnv  = "FAULTSUITE_FD_LIMIT"  // the child's descriptor limit
	fdOpensEnv  = "FAULTSUITE_FD_OPENS"  // sessions the close scenario opens
	fdListenEnv = "FAULTSUITE_FD_LISTEN" // every other session installs a notification handler
	fdRetryEnv  = "FAULTSUITE_FD_RETRY"  // Config.RetryInitialConnect, each caller waiting 3 s
)

// runFDChild runs the scenario named by fdChildEnv and returns the exit
// code; what failed is on stderr.
func runFDChild(scenario string) int {
	var err error
	switch scenario {
	case "typed":
		err = fdTypedScenario()
	case "close":
		err = fdCloseScenario()
	default:
		err = fmt.Errorf("unknown scenario %q", scenario)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	return 0
}

// runFDScenario re-executes the test binary as scenario's child and fails
// t with its output unless it succeeded.
func runFDScenario(t *testing.T, scenario string, env ...string) string {
	t.Helper()
	keep := demoserver.New(demoserver.Options{})
	hs, err := keep.ListenHTTP("127.0.0.1:0", demoserver.HTTPOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = hs.Close(context.Background()) })

	// Every answer ends its connection, so every request of the child
	// dials anew: a request made while the child has no descriptor left
	// fails dialing.
	closing := demoserver.New(demoserver.Options{}).HTTPHandler(demoserver.HTTPOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		closing.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }() // Owner: this test. Exits when srv is closed below.
	t.Cleanup(func() {
		_ = closing.Close(context.Background())
		_ = srv.Close()
	})

	cmd := exec.Command(selfExe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env,
		fdChildEnv+"="+scenario,
		fdURLEnv+"="+hs.StreamableURL(),
		fdCloseEnv+"=http://"+ln.Addr().String()+demoserver.PathStreamable,
	)...)
	out, err := cmd.CombinedOutput()
	t.Logf("child %s:\n%s", scenario, out)
	require.NoError(t, err, "the child scenario failed")
	return string(out)
}

// setFDLimit sets the soft descriptor limit to limit, and returns how
// many descriptors are open now.
func setFDLimit(limit int) (int, error) {
	open := countFDs()
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	rl.Cur = uint64(limit)
	return open, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
}

// hogFDs opens /dev/null until the process is out of descriptors.
func hogFDs() ([]*os.File, error) {
	var fs []*os.File
	for {
		f, err := os.Open(os.DevNull)
		if errors.Is(err, syscall.EMFILE) {
			return fs, nil
		}
		if err != nil {
			return fs, err
		}
		fs = append(fs, f)
	}
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// isLocal checks err is the typed local-exhaustion error, not a server's.
func isLocal(what string, err error) error {
	var rpc *mcpengine.RPCError
	switch {
	case err == nil:
		return fmt.Errorf("%s: no error while out of descriptors", what)
	case !errors.Is(err, mcpengine.ErrLocalResources):
		return fmt.Errorf("%s: %v is not ErrLocalResources", what, err)
	case !errors.Is(err, syscall.EMFILE):
		return fmt.Errorf("%s: %v does not match EMFILE", what, err)
	case errors.As(err, &rpc):
		return fmt.Errorf("%s: %v reaches the caller as a JSON-RPC error", what, err)
	case errors.Is(err, mcpengine.ErrUnreachable):
		return fmt.Errorf("%s: %v blames the server (ErrUnreachable)", what, err)
	}
	return nil
}

// fdTypedScenario: a request, and a first connect, made while the process
// has no descriptor left fail with the typed local error, are counted,
// and the session recovers once descriptors are free again.
func fdTypedScenario() error {
	url := os.Getenv(fdCloseEnv)
	if _, err := setFDLimit(countFDs() + 64); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := mcpengine.New(mcpengine.Config{})
	defer func() { _ = e.Close(ctx) }()
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "ready", Server: mcpengine.ServerConfig{URL: url}})
	if err != nil {
		return fmt.Errorf("connect before exhaustion: %w", err)
	}

	// The connection of the last answer may close after the hog took
	// every descriptor, freeing one: then the ping gets it, and the hog
	// takes it on the next round.
	var hog []*os.File
	defer func() { closeAll(hog) }()
	var pingErr error
	for range 5 {
		more, err := hogFDs()
		hog = append(hog, more...)
		if err != nil {
			return err
		}
		if pingErr = s.Ping(ctx); pingErr != nil {
			break
		}
	}
	if err := isLocal("ping", pingErr); err != nil {
		return err
	}
	if n := s.Stats().LocalResourceFailures; n == 0 {
		return errors.New("Stats.LocalResourceFailures did not count the failure")
	}
	// Likewise a descriptor freed after the hog (a connection closing)
	// can let a connect through: hog it and try again.
	for i := range 5 {
		more, herr := hogFDs()
		hog = append(hog, more...)
		if herr != nil {
			return herr
		}
		var first *mcpengine.Session
		if first, err = e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("first", i), Server: mcpengine.ServerConfig{URL: url}}); err != nil {
			break
		}
		_ = first.Close(ctx)
	}
	if err := isLocal("first connect", err); err != nil {
		return err
	}
	var ce *mcpengine.ConnectError
	if !errors.As(err, &ce) || !ce.Local {
		return fmt.Errorf("first connect: %v is not a local *ConnectError", err)
	}

	closeAll(hog)
	hog = nil
	if err := s.Ping(ctx); err != nil {
		return fmt.Errorf("ping once descriptors are free: %w", err)
	}
	fmt.Println("typed: ping and first connect failed with ErrLocalResources/EMFILE, counted; recovered")
	return nil
}

// fdCloseScenario: many sessions open at once under a descriptor limit
// they exceed; some fail. Once Engine.Close returns, no goroutine of the
// engine runs and every descriptor it opened is closed (issue 16.9).
func fdCloseScenario() error {
	url := os.Getenv(fdURLEnv)
	limit, _ := strconv.Atoi(os.Getenv(fdLimitEnv))
	n, _ := strconv.Atoi(os.Getenv(fdOpensEnv))
	listen := os.Getenv(fdListenEnv) != ""
	base, err := setFDLimit(limit)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	retry := os.Getenv(fdRetryEnv) != ""
	e := mcpengine.New(mcpengine.Config{RetryInitialConnect: retry})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ready, local, other := 0, 0, map[string]int{}
	for i := range n {
		wg.Add(1)
		go func() { // Owner: this scenario. Exits when its session is ready or failed.
			defer wg.Done()
			s, err := e.Open(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("s-", i), Server: mcpengine.ServerConfig{URL: url}})
			if err == nil {
				if listen && i%2 == 0 || os.Getenv("FAULTSUITE_FD_ALL") != "" {
					s.OnNotification(func(mcpengine.Notification) {})
				}
				wctx := ctx
				if retry {
					// Patient sessions retry until their caller gives up.
					var cancel context.CancelFunc
					wctx, cancel = context.WithTimeout(ctx, 3*time.Second)
					defer cancel()
				}
				err = s.WaitReady(wctx)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ready++
			case errors.Is(err, mcpengine.ErrLocalResources), retry && errors.Is(err, context.DeadlineExceeded):
				local++
			default:
				other[err.Error()]++
			}
		}()
	}
	wg.Wait()
	fmt.Printf("close: %d sessions under a limit of %d descriptors (%d open before): %d ready, %d out of descriptors, %d other failures\n", n, limit, base, ready, local, len(other))
	for msg, k := range other {
		fmt.Printf("  %d× %s\n", k, msg)
	}
	if err := e.Close(ctx); err != nil {
		return fmt.Errorf("Engine.Close: %w", err)
	}
	if got := countFDs(); got != base {
		return fmt.Errorf("descriptors after Close: %d, before the engine: %d", got, base)
	}
	if err := goleak.Find(); err != nil {
		return fmt.Errorf("goroutines left after Close: %w", err)
	}
	if len(other) > 0 {
		return fmt.Errorf("%d sessions failed other than for want of descriptors", len(other))
	}
	fmt.Println("close: descriptors and goroutines back to baseline")
	return nil
}

// A request and a first connect made while this process has no
// descriptor left fail with *LocalResourceError / a local *ConnectError
// (ErrLocalResources, EMFILE), not a server's JSON-RPC error or
// ErrUnreachable; they are counted, and the session works again once
// descriptors are free (issue 16.10).
func TestOutOfDescriptorsIsATypedLocalError(t *testing.T) {
	runFDScenario(t, "typed")
}

// 1,000 Streamable HTTP sessions opened at once under a 700-descriptor
// limit, half of them listening: the failures are all ErrLocalResources,
// and after Engine.Close nothing of the engine runs or holds a descriptor
// (issue 16.9).
func TestCloseAfterFailedOpensLeavesNothing(t *testing.T) {
	runFDScenario(t, "close", fdLimitEnv+"=700", fdOpensEnv+"=1000", fdListenEnv+"=1")
}

// The same with Config.RetryInitialConnect: the sessions that found no
// descriptor retry with backoff until their callers give up after 3 s;
// Engine.Close then stops every one of them, sleeping or dialing.
func TestCloseAfterPatientOpensLeavesNothing(t *testing.T) {
	runFDScenario(t, "close", fdLimitEnv+"=700", fdOpensEnv+"=1000", fdListenEnv+"=1", fdRetryEnv+"=1")
}
