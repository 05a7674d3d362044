// Package peers runs one stdio workload (tools/call echo {"text":"hello"}
// against demoserver) through several MCP clients: a hand-written raw
// JSON-RPC loop, mcpengine, the official go-sdk and mcp-go. Every client
// uses only its library's public client API and gets its own fresh server
// subprocess.
package peers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpengine/mcpengine/demoserver"
)

// ProtocolVersion is offered by every client: the newest version that
// demoserver speaks, pinned so that no client spends a round trip on a
// newer-version probe (go-sdk and mcp-go would try server/discover first).
const ProtocolVersion = "2025-11-25"

// EchoText is the text argument of every call; each client checks that the
// result's first text content equals it.
const EchoText = "hello"

// Client is one connected MCP client session.
type Client interface {
	// Echo makes one tools/call echo {"text": EchoText} and checks the result.
	Echo(ctx context.Context) error
	// Close ends the session and its server subprocess.
	Close() error
}

// Kind names a client implementation and says how to connect it to a
// server started with command and args.
type Kind struct {
	Name string
	Dial func(ctx context.Context, command string, args []string) (Client, error)
}

// Kinds are the clients compared, in table order.
var Kinds = []Kind{
	{"raw-std", DialRawStd},
	{"raw-sonic", DialRawSonic},
	{"mcpengine", DialEngine},
	{"go-sdk", DialGoSDK},
	{"mcp-go", DialMCPGo},
}

// ServeArg is the argument that makes a benchmark binary act as the stdio
// demo server (see MaybeServe): the binary re-executes itself, so every
// client talks to the same server code without a separate build step.
const ServeArg = "serve-demoserver"

// MaybeServe runs demoserver.ServeStdio and exits if os.Args[1] is ServeArg;
// otherwise it returns at once. Call it first thing in main or TestMain.
func MaybeServe() {
	if len(os.Args) < 2 || os.Args[1] != ServeArg {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := demoserver.ServeStdio(ctx, demoserver.Options{}, os.Stdin, os.Stdout)
	stop()
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "demoserver:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// SelfServer returns the command and args that start this binary as the
// demo server.
func SelfServer() (string, []string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	return exe, []string{ServeArg}, nil
}

var errBadEcho = errors.New("echo: unexpected result")

func checkEcho(text string) error {
	if text != EchoText {
		return fmt.Errorf("%w: %q", errBadEcho, text)
	}
	return nil
}
