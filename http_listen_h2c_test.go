package mcpengine_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/messages"
)

// h2cDemoServerEnv makes the test binary the demo server over HTTP/1.1
// and prior-knowledge h2c (serveH2CDemo), in the era it names: a server
// in another process, so that the goroutines counted are the client's.
const h2cDemoServerEnv = "MCPENGINE_H2C_DEMO_SERVER_ERA"

// serveH2CDemo serves the demo server over h2c on a loopback port, prints
// its endpoint and returns when stdin closes (the test ended or died).
func serveH2CDemo(era string) {
	versions := messages.LegacyVersions
	if era == "modern" {
		versions = messages.ModernVersions
	}
	h := demoserver.New(demoserver.Options{Versions: versions}).HTTPHandler(demoserver.HTTPOptions{})
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: h, Protocols: &protos, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s%s\n", ln.Addr(), demoserver.PathStreamable)
	go func() { _ = srv.Serve(ln) }() // Owner: this child process. Ends with it.
	buf := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			return
		}
	}
}

// startH2CDemo starts the demo server in a child process over h2c in
// era ("legacy" or "modern") and returns its configuration.
func startH2CDemo(t *testing.T, era string) mcpengine.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), h2cDemoServerEnv+"="+era)
	return mcpengine.ServerConfig{URL: testkit.StartAddressChild(t, cmd), Type: "streamable-http", HTTP2PriorKnowledge: true}
}

// TestListeningSessionsOverH2CTwoGoroutinesEach: N sessions that listen
// over one h2c connection (legacy era: the GET stream; 2026-07-28: the
// subscriptions/listen POST) hold at most two goroutines each beyond the
// engine's own: the transport's listener, which reads the stream, and
// net/http's HTTP/2 client's goroutine for the open stream (until Go 1.28
// removes that one, golang/go#80735; docs/SCALE.md). Each listen is shown
// open by a notification that travelled on it.
func TestListeningSessionsOverH2CTwoGoroutinesEach(t *testing.T) {
	const n = 30
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			server := startH2CDemo(t, era)
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 60*time.Second)

			warm, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "warm", Server: server})
			require.NoError(t, err)
			require.NoError(t, warm.Close(ctx))
			base, baseFDs := runtime.NumGoroutine(), openFDs(t)

			got := make(chan string, 4*n)
			sessions := make([]*mcpengine.Session, n)
			for i := range sessions {
				s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("listener-", i), Server: server})
				require.NoError(t, err)
				name := fmt.Sprint("listener-", i)
				s.OnNotification(func(m mcpengine.Notification) {
					if m.Method == messages.NotificationToolsListChanged {
						select {
						case got <- name:
						default: // a repeat the test no longer needs
						}
					}
				})
				sessions[i] = s
			}
			// The listens are open once a list change reaches each: in
			// 2026-07-28 one notify reaches every listen (the server's
			// sessions live per request); in the legacy era each
			// session's own notify goes on its own GET stream.
			// A legacy session's GET stream opens in the background once its
			// handler is set, and a list change sent before it is open is
			// not sent again: the sessions not yet heard are asked again,
			// round after round, until ctx ends.
			heard := map[string]bool{}
			for round := 1; len(heard) < n; round++ {
				require.NoError(t, ctx.Err(), "after %d rounds only %d of %d sessions heard the list change", round-1, len(heard), n)
				if era == "modern" {
					for i, s := range sessions {
						waitListen(t, s, 20*time.Second, fmt.Sprint("listen ", i, " open"), func(st mcpengine.ListenStatus) bool { return st.Phase == mcpengine.ListenOpen })
					}
					_, err := sessions[0].CallTool(ctx, "notify", map[string]any{"kind": "tools"})
					require.NoError(t, err)
				} else {
					for i, s := range sessions {
						if !heard[fmt.Sprint("listener-", i)] {
							_, err := s.CallTool(ctx, "notify", map[string]any{"kind": "tools"})
							require.NoError(t, err)
						}
					}
				}
				timeout := time.NewTimer(5 * time.Second)
				for len(heard) < n {
					select {
					case name := <-got:
						heard[name] = true
						continue
					case <-timeout.C:
					case <-ctx.Done():
					}
					break
				}
				timeout.Stop()
			}

			// The calls' goroutines and idle workers exit on their own;
			// what stays is the listens' cost: two goroutines each (the
			// listener and net/http's stream goroutine), and the read
			// loop of the one connection they share.
			testkit.Eventually(t, 30*time.Second, func() bool { return runtime.NumGoroutine()-base <= 2*n+1 },
				"%d listening sessions hold more than two goroutines each: %v beyond the baseline", n, lazy(func() any { return runtime.NumGoroutine() - base }))
			// Engine.Close leaves neither the stream connection nor its
			// read loop behind.
			require.NoError(t, e.Close(ctx))
			testkit.Eventually(t, 10*time.Second, func() bool { return runtime.NumGoroutine() <= base && openFDs(t) <= baseFDs },
				"after Engine.Close: %v goroutines (baseline %d), %v descriptors (baseline %d)",
				lazy(func() any { return runtime.NumGoroutine() }), base, lazy(func() any { return openFDs(t) }), baseFDs)
		})
	}
}

// lazy formats as what f returns when the message is built (a failure's,
// not the call's).
type lazy func() any

func (l lazy) String() string { return fmt.Sprint(l()) }

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents)
}

// TestTheListeningStreamOverH2CGoesThroughTheHookAndCarriesCredentials:
// the GET stream goes through the request hook (and OAuth's transport,
// which wraps net/http's the same way) and reaches the server over HTTP/2
// with the hook's header and the server's credentials.
func TestTheListeningStreamOverH2CGoesThroughTheHookAndCarriesCredentials(t *testing.T) {
	type seenGet struct {
		proto         int
		tenant, token string
	}
	gets := make(chan seenGet, 8)
	h := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions}).StreamableHandler(demoserver.HTTPOptions{})
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets <- seenGet{r.ProtoMajor, r.Header.Get("X-Tenant"), r.Header.Get("Authorization")}
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.Protocols = &protos
	ts.Start()
	closeDemoAtCleanup(t, h, ts)

	e := newEngine(t, mcpengine.Config{OnHTTPRequest: func(r *http.Request) { r.Header.Set("X-Tenant", "blue") }})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "hooked", Server: mcpengine.ServerConfig{
		URL: ts.URL + demoserver.PathStreamable, Type: "streamable-http", HTTP2PriorKnowledge: true,
		Auth: &mcpengine.AuthConfig{Bearer: "listen-token"},
	}})
	require.NoError(t, err)
	got, stop := toolsListChanges(s)
	defer stop()
	select {
	case g := <-gets:
		require.Equal(t, seenGet{2, "blue", "Bearer listen-token"}, g)
	case <-ctx.Done():
		t.Fatal("no GET stream")
	}
	notifyUntilHeard(t, ctx, s, got)
}

// TestTheListeningStreamOverTLSNegotiatesH2: to an https server that
// offers h2 by ALPN the GET stream goes over HTTP/2 (with the server's TLS
// settings) and carries the server's notifications.
func TestTheListeningStreamOverTLSNegotiatesH2(t *testing.T) {
	gets := make(chan int, 8)
	h := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions}).StreamableHandler(demoserver.HTTPOptions{})
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets <- r.ProtoMajor
		}
		h.ServeHTTP(w, r)
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	closeDemoAtCleanup(t, h, ts)

	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "tls", Server: mcpengine.ServerConfig{
		URL: ts.URL + demoserver.PathStreamable, Type: "streamable-http",
		TLS: &mcpengine.TLSConfig{InsecureSkipVerify: true},
	}})
	require.NoError(t, err)
	got, stop := toolsListChanges(s)
	defer stop()
	select {
	case proto := <-gets:
		require.Equal(t, 2, proto)
	case <-ctx.Done():
		t.Fatal("no GET stream")
	}
	notifyUntilHeard(t, ctx, s, got)
}

// toolsListChanges installs s's notification handler (which opens its
// GET stream) and signals on the channel when a tools list change comes.
func toolsListChanges(s *mcpengine.Session) (<-chan struct{}, func()) {
	got := make(chan struct{}, 1)
	stop := s.OnNotification(func(m mcpengine.Notification) {
		if m.Method == messages.NotificationToolsListChanged {
			select {
			case got <- struct{}{}:
			default:
			}
		}
	})
	return got, stop
}

// notifyUntilHeard has the demo server send a tools list change until one
// reaches got: the server may not have registered a GET stream yet when
// its request arrived, and a change sent before that goes nowhere.
func notifyUntilHeard(t *testing.T, ctx context.Context, s *mcpengine.Session, got <-chan struct{}) {
	t.Helper()
	for {
		_, err := s.CallTool(ctx, "notify", map[string]any{"kind": "tools"})
		require.NoError(t, err)
		select {
		case <-got:
			return
		case <-time.After(time.Second): // ask again
		case <-ctx.Done():
			t.Fatal("no list change came on the GET stream")
		}
	}
}
