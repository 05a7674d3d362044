package peers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The arguments that make a benchmark binary act as the Go SDK server (see
// MaybeServe): the binary re-executes itself, so every client talks to the
// same server code without a separate build step.
const (
	serveStdioArg = "serve-gosdk-stdio"
	serveHTTPArg  = "serve-gosdk-http"
)

// newEchoServer is the Go SDK server of the benchmark: one tool, echo, every
// protocol version the SDK speaks. The tool decodes its arguments itself
// rather than through a typed handler, so the server spends no time
// validating a schema and is less often the bottleneck of calls/s.
func newEchoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "peers-echo", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
		})
	return s
}

// MaybeServe runs the Go SDK echo server and exits if os.Args[1] asks for
// it; otherwise it returns at once. Call it first thing in main or TestMain.
//
//	serve-gosdk-stdio                   over stdin/stdout
//	serve-gosdk-http stateful|stateless Streamable HTTP on a loopback port,
//	                                    printed as the first line of stdout;
//	                                    it serves until stdin ends
//	first-call KIND VERSION [URL]       one client's time to its first
//	                                    call, printed in nanoseconds
func MaybeServe() {
	if len(os.Args) < 2 {
		return
	}
	var err error
	switch os.Args[1] {
	case serveStdioArg:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = newEchoServer().Run(ctx, &mcp.StdioTransport{})
		stop()
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			err = nil
		}
	case serveHTTPArg:
		err = serveHTTP(len(os.Args) > 2 && os.Args[2] == "stateless")
	case firstCallArg:
		err = serveFirstCall(os.Args[2:])
	default:
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveHTTP serves go-sdk's StreamableHTTPHandler with JSON answers (no
// SSE), so that the raw HTTP loop reads plain JSON like every other client.
// Stateful serves sessions (Mcp-Session-Id): the handshake era. go-sdk
// accepts 2026-07-28 requests only when Stateless.
func serveHTTP(stateless bool) error {
	srv := newEchoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	// Owned by serveHTTP: exits when Shutdown below closes the listener.
	go func() { served <- hs.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin) // the parent closes stdin to stop us
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(ctx)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// StdioTarget returns the target that starts this binary as the stdio Go
// SDK server, one child per session.
func StdioTarget(version string) (Target, error) {
	exe, err := os.Executable()
	if err != nil {
		return Target{}, err
	}
	return Target{Version: version, Command: exe, Args: []string{serveStdioArg}}, nil
}

// HTTPServer is this binary running as the Go SDK Streamable HTTP server in
// a child process, so the server's CPU is not in the client's getrusage.
type HTTPServer struct {
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// StartHTTPServer starts the HTTP server child: stateless for 2026-07-28
// rows (go-sdk requires it), stateful for the handshake era.
func StartHTTPServer(stateless bool) (*HTTPServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	mode := "stateful"
	if stateless {
		mode = "stateless"
	}
	cmd := exec.Command(exe, serveHTTPArg, mode)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = stdin.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("peers: HTTP server child printed no address: %w", err)
	}
	return &HTTPServer{URL: strings.TrimSpace(line), cmd: cmd, stdin: stdin}, nil
}

// Target is the server's endpoint offered at version.
func (s *HTTPServer) Target(version string) Target { return Target{Version: version, URL: s.URL} }

// Close stops the child (end of stdin) and waits for it.
func (s *HTTPServer) Close() error {
	_ = s.stdin.Close()
	return s.cmd.Wait()
}
